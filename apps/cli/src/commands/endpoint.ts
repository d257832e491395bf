import { RETRY_PRESETS, type RetryPolicy } from "@rehook/core";
import { ingressSettingsFromWire, wireEndpoint, type IngressSettingsWire } from "@rehook/http";
import { createEndpoint, deleteEndpoint, endpointContracts, endpointSecret, updateEndpoint } from "@rehook/services";
import type { Orm } from "@rehook/db";
import { UsageError } from "../cli-error.js";
import { dedupFromFlags, dedupOptions } from "../dedup-option.js";
import { serverConfig } from "../env.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";
import type { CommandContext } from "./types.js";

const slug = { type: "string", required: true, description: "the endpoint's slug" } as const;

/** --retry-preset none|hour|day as a policy (undefined: not given, the default of one attempt). */
function retryPresetOption(value: string | undefined): RetryPolicy | null | undefined {
  if (value === undefined) return undefined;
  const preset = RETRY_PRESETS.find((candidate) => candidate.id === value);
  if (!preset) throw new UsageError(`--retry-preset must be one of ${RETRY_PRESETS.map((candidate) => candidate.id).join(", ")}`);
  return preset.policy;
}

/** --pause-after N: a whole number of consecutive failed attempts (the use case checks its range). */
function pauseAfterOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError("--pause-after must be a whole number of consecutive failed attempts");
  return Number(value);
}

/** --retention-days N: whole days (0: keep for ever; the use case checks the range). */
function retentionOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError("--retention-days must be a whole number of days (0 keeps events for ever)");
  return Number(value);
}

const retentionDays = { type: "string", description: "keep its events this many days (0: for ever; default: RETENTION_DAYS)" } as const;

/** --response, --handshake and --verification: JSON as the API's fields take it ("null" clears). */
const ingressOptions = {
  response: { type: "string", description: 'what senders get back, as JSON: {"status":202,"headers":{},"body":"…{{event_id}}…","delay_ms":0}, or null for the default' },
  handshake: { type: "string", description: 'answer a provider\'s URL check, as JSON: {"provider":"slack|meta|zoom","token":"…"}, or null' },
  verification: {
    type: "string",
    description: 'check signatures, as JSON: {"scheme":"stripe|github|shopify|slack|twilio|standard-webhooks|hmac-sha256","secret":"…","reject_invalid":false}, or null',
  },
} as const;

function jsonOption(name: string, value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new UsageError(`--${name} must be JSON, like the API's ${name} field (or null to clear it)`);
  }
}

/** The ingress options given, as the use cases take them. */
function ingressOption(options: { response?: string; handshake?: string; verification?: string }) {
  const wire: Record<string, unknown> = {};
  for (const name of ["response", "handshake", "verification"] as const) {
    const value = jsonOption(name, options[name]);
    if (value !== undefined) wire[name] = value;
  }
  return ingressSettingsFromWire(wire as IngressSettingsWire);
}

/**
 * What the endpoint use cases need from the command's configuration: the running server's
 * settings (its capture URLs, whether it forwards to private addresses, its default retention)
 * where the environment does not set them, so the command prints and accepts what the server will.
 */
const endpointContext = (orm: Orm, context: CommandContext) => {
  const config = serverConfig(context.config);
  return {
    orm,
    baseUrl: config.baseUrl,
    captureBaseUrl: config.captureBaseUrl,
    addressPolicy: { allowPrivate: config.allowPrivateDestinations },
    retentionDays: config.retentionDays,
  };
};

export const endpointCreateCommand = defineCommand(
  ["endpoint", "create"],
  {
    usage:
      "rehook endpoint create --email <email> [--team <slug>] --name <name> [--destination <url>] [--sign] [--retry-preset none|hour|day] [--pause-after <n>] [--retention-days <n>] [--dedup auto|body|header:NAME|json:PATH [--dedup-window <seconds>]]",
    summary: "Create an endpoint in a team (developer role). Prints it as JSON: {id, name, slug, webhook_url, destination_url, health, ...}.",
    options: {
      ...memberOptions,
      name: { type: "string", required: true, description: "a label; the slug is made from it" },
      destination: { type: "string", description: "URL to forward captured requests to (blank: capture only)" },
      sign: { type: "boolean", description: "add Standard Webhooks signature headers to forwarded requests" },
      "retry-preset": { type: "string", description: "retries of failed forwards: none (one attempt, the default), hour (5 attempts over about an hour), day (8 over a day)" },
      "pause-after": { type: "string", description: "pause forwarding after this many consecutive failed attempts (default: never)" },
      "retention-days": retentionDays,
      ...dedupOptions,
    },
  } as const,
  (options, context) => {
    const dedup = dedupFromFlags(options);
    const retryPolicy = retryPresetOption(options["retry-preset"]);
    const pauseAfterFailures = pauseAfterOption(options["pause-after"]);
    const retention = retentionOption(options["retention-days"]);
    return asMember(context, options, endpointContracts.createEndpointContract, ({ orm }, actor) =>
      createEndpoint(endpointContext(orm, context), {
        teamId: actor.teamId,
        by: actor,
        name: options.name,
        destinationUrl: options.destination ?? null,
        signRequests: options.sign,
        retryPolicy,
        pauseAfterFailures,
        retentionDays: retention,
        ...(dedup !== undefined ? { dedup } : {}),
      }).then(wireEndpoint),
    );
  },
);

export const endpointUpdateCommand = defineCommand(
  ["endpoint", "update"],
  {
    usage:
      "rehook endpoint update --email <email> [--team <slug>] --slug <slug> [--retention-days <n>|--retention-default] [--retry-preset none|hour|day] [--pause-after <n>] [--response <json>] [--handshake <json>] [--verification <json>] [--dedup auto|body|header:NAME|json:PATH|off [--dedup-window <seconds>]|--no-dedup]",
    summary: "Change an endpoint's retention, retries, circuit breaker, answer to senders, signature check or deduplication. Prints it as JSON.",
    options: {
      ...memberOptions,
      slug,
      "retention-days": retentionDays,
      "retention-default": { type: "boolean", description: "keep its events as long as RETENTION_DAYS says (drops its own retention)" },
      "retry-preset": { type: "string", description: "retries of failed forwards: none, hour or day" },
      "pause-after": { type: "string", description: "pause forwarding after this many consecutive failed attempts" },
      ...ingressOptions,
      ...dedupOptions,
    },
  } as const,
  (options, context) => {
    const dedup = dedupFromFlags(options);
    if (options["retention-default"] && options["retention-days"] !== undefined) throw new UsageError("Give --retention-days or --retention-default, not both.");
    const retention = options["retention-default"] ? null : retentionOption(options["retention-days"]);
    const changes = {
      ...(retention !== undefined ? { retentionDays: retention } : {}),
      ...(options["retry-preset"] !== undefined ? { retryPolicy: retryPresetOption(options["retry-preset"]) } : {}),
      ...(options["pause-after"] !== undefined ? { pauseAfterFailures: pauseAfterOption(options["pause-after"]) } : {}),
      ...ingressOption(options),
      ...(dedup !== undefined ? { dedup } : {}),
    };
    if (Object.keys(changes).length === 0) {
      throw new UsageError("There is nothing to change. Give --retention-days, --retention-default, --retry-preset, --pause-after, --response, --handshake, --verification, --dedup or --no-dedup.");
    }
    return asMember(context, options, endpointContracts.updateEndpointContract, ({ orm }, actor) =>
      updateEndpoint(endpointContext(orm, context), { teamId: actor.teamId, by: actor, endpoint: { slug: options.slug }, changes }).then(wireEndpoint),
    );
  },
);

export const endpointDeleteCommand = defineCommand(
  ["endpoint", "delete"],
  {
    usage: "rehook endpoint delete --email <email> [--team <slug>] --slug <slug>",
    summary: "Permanently delete an endpoint and all its events (admin role). Its capture URL answers 404 at once; its events are purged in the background.",
    options: { ...memberOptions, slug },
  } as const,
  async (options, context) => {
    await asMember(context, options, endpointContracts.deleteEndpointContract, ({ orm }, actor) => deleteEndpoint({ orm }, { teamId: actor.teamId, by: actor, endpoint: { slug: options.slug } }));
    return { deleted: options.slug };
  },
);

export const endpointSecretCommand = defineCommand(
  ["endpoint", "secret"],
  {
    usage: "rehook endpoint secret --email <email> [--team <slug>] --slug <slug> [--rotate]",
    summary: "Print an endpoint's whsec_ signing secret as JSON; --rotate replaces it first.",
    options: {
      ...memberOptions,
      slug,
      rotate: { type: "boolean", description: "generate a new secret (the old one stops working at once)" },
    },
  } as const,
  (options, context) =>
    asMember(context, options, options.rotate ? endpointContracts.rotateSecretContract : endpointContracts.endpointSecretContract, ({ orm }, actor) =>
      endpointSecret({ orm }, { teamId: actor.teamId, by: actor, endpoint: { slug: options.slug }, rotate: options.rotate }).then(({ slug, secret }) => ({ slug, secret })),
    ),
);
