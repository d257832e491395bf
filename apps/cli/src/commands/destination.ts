import { MAX_RATE_LIMIT_PER_SECOND, notFoundMessage, RETRY_PRESETS, UserError, type RetryPolicy } from "@rehook/core";
import { findOwnedEndpoint, type Orm } from "@rehook/db";
import { createDestination, deleteDestination, destinationContracts, listDestinations, MAX_PAUSE_AFTER_FAILURES, updateDestination } from "@rehook/services";
import { UsageError } from "../cli-error.js";
import { contractFields, contractFlags, fromFlags } from "../contract-options.js";
import { serverConfig } from "../env.js";
import { DESTINATION_COLUMNS, wireDestination } from "../output/destinations.js";
import { renderTable } from "../output/table.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";
import type { CommandContext } from "./types.js";

// An endpoint's destinations (at most 20): where its captured requests are forwarded, each with
// its own filter, rate limit, order, retries and circuit breaker. The endpoint is named by its
// slug, as the endpoint commands name it; a destination by its id (rehook destination list).

type Changes = Parameters<typeof updateDestination>[1]["changes"];

const endpoint = { type: "string", required: true, description: "the endpoint's slug (rehook endpoint list shows it)" } as const;
const id = { type: "string", required: true, description: "the destination's id (rehook destination list shows it)" } as const;

/** The destinations contracts' url and name fields as flags. */
const TEXT_FLAGS = { url: "url", name: "name" };
const TEXT_HELP = {
  url: "where to forward: an http(s) URL on a public address (see ALLOW_PRIVATE_DESTINATIONS)",
  name: "a label (default: the URL's host name)",
};

/** The settings both add and update take. */
const settingOptions = {
  filter: {
    type: "string",
    description: 'forward only the requests it lets through, as JSON: {"headers.X-GitHub-Event":"push","body.amount":{"$gt":100}}; null for every request (the default)',
  },
  "rate-limit": { type: "string", description: `send at most this many requests a second, 1 to ${MAX_RATE_LIMIT_PER_SECOND.toLocaleString("en-US")}; none for no limit (the default)` },
  ordered: { type: "boolean", description: "send one request at a time, in the order they were captured (a failing one holds back the rest)" },
  "retry-preset": { type: "string", description: "retries of failed forwards: none (one attempt, the default), hour (5 attempts over about an hour), day (8 over a day)" },
  "pause-after": { type: "string", description: "pause forwarding to it after this many consecutive failed attempts; none: never (the default)" },
} as const;

interface SettingFlags {
  filter?: string;
  "rate-limit"?: string;
  "retry-preset"?: string;
  "pause-after"?: string;
}

/** --filter: JSON as the API's filter field takes it (null: none). The use case checks the filter itself. */
function filterOption(value: string | undefined): unknown {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    throw new UsageError(`--filter must be JSON, like the API's filter field: {"body.type":"invoice.paid"} (or null for no filter)`);
  }
}

/** A whole number in 1…max, or none (null); undefined when the flag is not given. */
function countOrNone(flag: string, value: string | undefined, max: number, what: string): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === "none") return null;
  const number = /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  if (!(number >= 1 && number <= max)) throw new UsageError(`--${flag} must be a whole number of ${what} from 1 to ${max.toLocaleString("en-US")}, or none`);
  return number;
}

/** --retry-preset none|hour|day as a policy (undefined: not given). */
function retryPresetOption(value: string | undefined): RetryPolicy | null | undefined {
  if (value === undefined) return undefined;
  const preset = RETRY_PRESETS.find((candidate) => candidate.id === value);
  if (!preset) throw new UsageError(`--retry-preset must be one of ${RETRY_PRESETS.map((candidate) => candidate.id).join(", ")}`);
  return preset.policy;
}

/** The settings the flags give, as the use cases take them (a flag left out is left out). */
function settingsFromFlags(options: SettingFlags): Changes {
  const settings = {
    filter: filterOption(options.filter),
    rateLimitPerSecond: countOrNone("rate-limit", options["rate-limit"], MAX_RATE_LIMIT_PER_SECOND, "requests a second"),
    retryPolicy: retryPresetOption(options["retry-preset"]),
    pauseAfterFailures: countOrNone("pause-after", options["pause-after"], MAX_PAUSE_AFTER_FAILURES, "consecutive failed attempts"),
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value !== undefined)) as Changes;
}

/** The id of the team's endpoint with this slug; another team's answers like a missing one. */
async function endpointIdOf(orm: Orm, teamId: string, slug: string): Promise<string> {
  const found = await findOwnedEndpoint(orm.em.fork(), teamId, { slug });
  if (!found) throw new UserError("not_found", notFoundMessage("endpoint slug", slug));
  return found.id;
}

/** What the destination use cases need: forwarding's address policy as the running server has it. */
const destinationContext = (orm: Orm, context: CommandContext) => ({ orm, addressPolicy: { allowPrivate: serverConfig(context.config).allowPrivateDestinations } });

const SETTINGS_USAGE = "[--filter <json>] [--rate-limit <n>|none] [--ordered] [--retry-preset none|hour|day] [--pause-after <n>|none]";

export const destinationAddCommand = defineCommand(
  ["destination", "add"],
  {
    usage: `rehook destination add --email <email> [--team <slug>] --endpoint <slug> --url <url> [--name <name>] ${SETTINGS_USAGE}`,
    summary: "Add a destination to an endpoint (developer role; at most 20): it gets the requests captured from now on that its filter lets through. Prints it as JSON.",
    options: {
      ...memberOptions,
      endpoint,
      ...contractFlags(contractFields(destinationContracts.createDestinationContract), TEXT_FLAGS, TEXT_HELP),
      ...settingOptions,
    },
  } as const,
  (options, context) => {
    const text = fromFlags(contractFields(destinationContracts.createDestinationContract), TEXT_FLAGS, options) as { url?: string; name?: string };
    if (text.url === undefined || text.url === "") throw new UsageError("The option --url is required. Add it to the command.");
    const settings = settingsFromFlags(options);
    return asMember(context, options, destinationContracts.createDestinationContract, async ({ orm }, actor) =>
      wireDestination(
        await createDestination(destinationContext(orm, context), {
          teamId: actor.teamId,
          by: actor,
          endpointId: await endpointIdOf(orm, actor.teamId, options.endpoint),
          ...settings,
          url: text.url!,
          ...(text.name !== undefined ? { name: text.name } : {}),
          ...(options.ordered ? { ordered: true } : {}),
        }),
      ),
    );
  },
);

export const destinationListCommand = defineCommand(
  ["destination", "list"],
  {
    usage: "rehook destination list --email <email> [--team <slug>] --endpoint <slug> [--json]",
    summary: "List an endpoint's destinations, the first (its destination_url) first: a table, or with --json the API's list ({data}).",
    options: {
      ...memberOptions,
      endpoint,
      json: { type: "boolean", description: "print what GET /api/v1/endpoints/{id}/destinations answers, for scripts" },
    },
  } as const,
  async (options, context) => {
    const destinations = await asMember(context, options, destinationContracts.listDestinationsContract, async ({ orm }, actor) =>
      listDestinations({ orm }, { teamId: actor.teamId, endpointId: await endpointIdOf(orm, actor.teamId, options.endpoint) }),
    );
    if (options.json) return { data: destinations.map(wireDestination) };
    if (destinations.length === 0) {
      context.stdout.write(`No destinations: ${options.endpoint} captures only. Add one with rehook destination add --endpoint ${options.endpoint} --url <url>.\n`);
      return undefined;
    }
    context.stdout.write(`${renderTable(destinations, DESTINATION_COLUMNS, context.client.color)}\n`);
    return undefined;
  },
);

export const destinationUpdateCommand = defineCommand(
  ["destination", "update"],
  {
    usage: `rehook destination update --email <email> [--team <slug>] --endpoint <slug> --id <id> [--url <url>] [--name <name>] ${SETTINGS_USAGE.replace("[--ordered]", "[--ordered|--no-ordered]")} [--enable|--disable]`,
    summary: "Change a destination: a filter applies to requests captured from now on, the rest from each delivery's next attempt. Prints it as JSON.",
    options: {
      ...memberOptions,
      endpoint,
      id,
      ...contractFlags(contractFields(destinationContracts.updateDestinationContract), TEXT_FLAGS, { ...TEXT_HELP, name: "a new label" }),
      ...settingOptions,
      "no-ordered": { type: "boolean", description: "send requests side by side again (turns --ordered off)" },
      enable: { type: "boolean", description: "forward to it again" },
      disable: { type: "boolean", description: "stop forwarding to it: requests captured meanwhile are not sent to it, and its waiting deliveries wait until --enable" },
    },
  } as const,
  (options, context) => {
    if (options.ordered && options["no-ordered"]) throw new UsageError("Give --ordered or --no-ordered, not both.");
    if (options.enable && options.disable) throw new UsageError("Give --enable or --disable, not both.");
    const text = fromFlags(contractFields(destinationContracts.updateDestinationContract), TEXT_FLAGS, options) as { url?: string; name?: string };
    const changes: Changes = {
      ...text,
      ...settingsFromFlags(options),
      ...(options.ordered || options["no-ordered"] ? { ordered: options.ordered } : {}),
      ...(options.enable || options.disable ? { enabled: options.enable } : {}),
    };
    if (Object.keys(changes).length === 0) {
      throw new UsageError("There is nothing to change. Give --url, --name, --filter, --rate-limit, --ordered, --no-ordered, --retry-preset, --pause-after, --enable or --disable.");
    }
    return asMember(context, options, destinationContracts.updateDestinationContract, async ({ orm }, actor) =>
      wireDestination(
        await updateDestination(destinationContext(orm, context), {
          teamId: actor.teamId,
          by: actor,
          endpointId: await endpointIdOf(orm, actor.teamId, options.endpoint),
          destinationId: options.id,
          changes,
        }),
      ),
    );
  },
);

export const destinationRemoveCommand = defineCommand(
  ["destination", "remove"],
  {
    usage: "rehook destination remove --email <email> [--team <slug>] --endpoint <slug> --id <id>",
    summary: "Remove a destination (developer role): its pending deliveries are cancelled, its finished ones stay in the events' history. Prints {endpoint, removed} as JSON.",
    options: { ...memberOptions, endpoint, id },
  } as const,
  async (options, context) => {
    await asMember(context, options, destinationContracts.deleteDestinationContract, async ({ orm }, actor) =>
      deleteDestination({ orm }, { teamId: actor.teamId, by: actor, endpointId: await endpointIdOf(orm, actor.teamId, options.endpoint), destinationId: options.id }),
    );
    return { endpoint: options.endpoint, removed: options.id };
  },
);
