import { restReplayAttempt } from "@rehook/http";
import { openReplayOutbound } from "@rehook/server";
import { parseInput, replayContracts, replayEvent, type ReplayAttemptView } from "@rehook/services";
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

/** --to original|staging|<URL>: a named environment of the endpoint, or any http(s) URL (a custom replay). */
export function replayTo(value: string): { environment: "original" | "staging" | "custom"; customUrl: string | null } {
  if (value === "original" || value === "staging") return { environment: value, customUrl: null };
  if (/^https?:\/\//i.test(value)) return { environment: "custom", customUrl: value };
  throw new UsageError(`--to must be original, staging or an http:// or https:// URL, not ${JSON.stringify(value)}`);
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
    usage: "rehook replay <event id> --email <email> [--team <slug>] --to original|staging|<url> [--json]",
    summary:
      "Send a stored event again from this machine, as the dashboard's replay does: to the endpoint's destination, its staging host, or a URL. Prints the attempt; exit 0 once it is recorded, whatever the destination answered.",
    arguments: ["event id"],
    options: {
      ...memberOptions,
      to: { type: "string", required: true, description: "original (the endpoint's destination), staging (the same on its staging host) or a URL (sent there as it is)" },
      json: { type: "boolean", description: "print the attempt as POST /api/v1/events/{id}/replay answers it, for scripts" },
      ...initOption,
    },
  } as const,
  async (options, context, [id]) => {
    const input = parseInput(contract.input, { eventId: id, ...replayTo(options.to) });
    // Private destinations are allowed when the running server allows them (ALLOW_PRIVATE_DESTINATIONS).
    const { allowPrivateDestinations } = serverConfig(context.config);
    const limits = { forwardTimeoutMs: context.config.forwardTimeoutMs, allowPrivateDestinations };
    const attempt = await asMember(
      context,
      options,
      contract,
      async ({ orm }, actor) => {
        // One delivery worker with forwarding's limits, for this one send.
        const sender = openReplayOutbound(limits);
        try {
          const ctx = { orm, outbound: sender.outbound, addressPolicy: { allowPrivate: allowPrivateDestinations }, maxPayloadBytes: context.config.maxPayloadBytes };
          return await replayEvent(ctx, { teamId: actor.teamId, userId: actor.userId, by: actor, ...input });
        } finally {
          await sender.close();
        }
      },
      options,
    );
    if (options.json) return restReplayAttempt(attempt);
    context.stdout.write(`${attemptText(attempt, context.client.color)}\n`);
    return undefined;
  },
);
