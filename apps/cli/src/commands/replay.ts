import { REPLAY_TARGETS, UserError, type ReplayTargetName } from "@rehook/core";
import { restReplayOutcome } from "@rehook/http";
import { openReplayOutbound } from "@rehook/server";
import { getEvent, listDestinations, parseInput, replayContracts, replayEventAttempts, type DestinationView, type ReplayAttemptView } from "@rehook/services";
import { UsageError } from "../cli-error.js";
import { serverConfig } from "../env.js";
import { statusColor } from "../output/table.js";
import { paint, printable, printableBlock } from "../output/terminal-text.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";
import { initOption } from "./with-database.js";

const contract = replayContracts.replayEventContract;

/** Most of the destination's answer shown under the outcome (--json leaves it out, as the API does). */
const SHOWN_RESPONSE_CHARS = 2048;

const TO_WORDS = `${REPLAY_TARGETS.join(", ")} or an http:// or https:// URL`;

/**
 * --to and --url: a target (core's planReplay says where each goes), or any http(s) URL as
 * shorthand for custom. Left out with --destination: that destination (original).
 */
export function replayTo(to: string | undefined, url: string | undefined, destination: string | undefined): { environment: ReplayTargetName; customUrl: string | null } {
  if (to === undefined) {
    if (destination === undefined) throw new UsageError(`give --to (${TO_WORDS}) or --destination`);
    return { environment: "original", customUrl: null };
  }
  if (/^https?:\/\//i.test(to)) return { environment: "custom", customUrl: to };
  if (!(REPLAY_TARGETS as readonly string[]).includes(to)) throw new UsageError(`--to must be ${TO_WORDS}, not ${JSON.stringify(to)}`);
  if (to === "custom" && url === undefined) throw new UsageError("--to custom needs --url <the URL to send to>");
  if (url !== undefined && to !== "custom") throw new UsageError("--url goes with --to custom");
  return { environment: to as ReplayTargetName, customUrl: url ?? null };
}

/**
 * The destination --destination names among the endpoint's: its id, or its name (exactly,
 * else ignoring case); a name two destinations share must be given as an id.
 */
export function destinationNamed(destinations: Pick<DestinationView, "id" | "name">[], value: string): string {
  const byId = destinations.find((destination) => destination.id === value);
  if (byId) return byId.id;
  for (const same of [(name: string) => name === value, (name: string) => name.toLowerCase() === value.toLowerCase()]) {
    const named = destinations.filter((destination) => same(destination.name));
    if (named.length === 1) return named[0]!.id;
    if (named.length > 1) throw new UserError("validation_failed", `${named.length} destinations are named ${JSON.stringify(value)}: give one's id (rehook destination list).`);
  }
  const known = destinations.map((destination) => destination.name).join(", ") || "none";
  throw new UserError("validation_failed", `--destination ${JSON.stringify(value)} is none of this endpoint's destinations (${known}): give a name or an id.`);
}

/** The attempt for a person: where it went, then how the destination answered. */
function attemptText(attempt: ReplayAttemptView, color: boolean): string {
  const answer = attempt.responseStatus === null ? "no answer" : String(attempt.responseStatus);
  const latency = attempt.latencyMs === null ? "" : ` in ${attempt.latencyMs} ms`;
  const lines = [
    `Replay ${attempt.id} of event ${attempt.eventId}`,
    `  to       ${printable(attempt.destinationUrl)} (${attempt.environment})`,
    `  outcome  ${paint(color, statusColor(attempt.status), attempt.status)}: ${answer}${latency}`,
    ...(attempt.error ? [`  error    ${printable(attempt.error)}`] : []),
  ];
  if (attempt.responseBody) {
    const body = attempt.responseBody.length > SHOWN_RESPONSE_CHARS ? `${attempt.responseBody.slice(0, SHOWN_RESPONSE_CHARS)}…` : attempt.responseBody;
    lines.push("", "Response body", printableBlock(body));
  }
  return lines.join("\n");
}

export const replayCommand = defineCommand(
  ["replay"],
  {
    usage: `rehook replay <event id> --email <email> [--team <slug>] --to ${REPLAY_TARGETS.join("|")}|<url> [--destination <id or name>] [--url <url>] [--json]`,
    summary:
      "Send a stored event again from this machine, as the dashboard's replay does: to one of its endpoint's destinations, every destination it matched or failed at, its staging host, or a URL. Prints each attempt; exit 0 once they are recorded, whatever the destinations answered.",
    arguments: ["event id"],
    options: {
      ...memberOptions,
      to: {
        type: "string",
        description:
          'original (the destination the event went to; when it went to several, say which with --destination, or use matched or failed), staging (the same on the staging host), local (localhost:3000, where private addresses are allowed), custom (--url), matched (every destination it matched, one attempt each), failed (each destination whose delivery failed and is not resolved), or a URL (sent there as it is)',
      },
      destination: { type: "string", description: "one of the endpoint's destinations, by id or name, with --to original (the default with it) or staging" },
      url: { type: "string", description: "the URL for --to custom" },
      json: { type: "boolean", description: "print what POST /api/v1/events/{id}/replay answers: the attempt, or {attempts, event_resolved} for matched and failed" },
      ...initOption,
    },
  } as const,
  async (options, context, [id]) => {
    const target = replayTo(options.to, options.url, options.destination);
    const input = parseInput(contract.input, { eventId: id, ...target });
    // Private destinations are allowed when the running server allows them (ALLOW_PRIVATE_DESTINATIONS).
    const { allowPrivateDestinations } = serverConfig(context.config);
    const limits = { forwardTimeoutMs: context.config.forwardTimeoutMs, allowPrivateDestinations };
    const outcome = await asMember(
      context,
      options,
      contract,
      async ({ orm }, actor) => {
        let destinationId: string | null = null;
        if (options.destination !== undefined) {
          const { endpointId } = await getEvent({ orm }, { teamId: actor.teamId, eventId: input.eventId });
          destinationId = destinationNamed(await listDestinations({ orm }, { teamId: actor.teamId, endpointId }), options.destination);
        }
        // One delivery worker with forwarding's limits, for this request's sends.
        const sender = openReplayOutbound(limits);
        try {
          const ctx = { orm, outbound: sender.outbound, addressPolicy: { allowPrivate: allowPrivateDestinations }, maxPayloadBytes: context.config.maxPayloadBytes };
          return await replayEventAttempts(ctx, { teamId: actor.teamId, userId: actor.userId, by: actor, ...input, destinationId });
        } finally {
          await sender.close();
        }
      },
      options,
    );
    if (options.json) return restReplayOutcome(outcome);
    context.stdout.write(`${outcome.attempts.map((attempt) => attemptText(attempt, context.client.color)).join("\n\n")}\n`);
    return undefined;
  },
);
