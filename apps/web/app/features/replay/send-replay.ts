import type { draftOverrides } from "../../lib/replay-edit";
import { destinationRequests, type ReplayAttempt, type ReplayChoices, type ReplayEnvironment } from "../../lib/replay";
import { trpc } from "../../lib/trpc.client";

/** What the dialog shows after sending: every attempt, and whether the event reads resolved now (null: not known, a local replay). */
export interface SentReplay {
  attempts: ReplayAttempt[];
  eventResolved: boolean | null;
}

/**
 * Sends one replay to a server-side target through replays.create (with the edits, if any):
 * the checked destinations as one request when they are the event's failed or matched ones,
 * else one per destination, together; staging on the chosen destination. Local replays go
 * through sendLocalReplay (rehook listen, or this browser).
 */
export async function sendReplay(request: {
  eventId: string;
  environment: Exclude<ReplayEnvironment, "local">;
  customUrl: string;
  /** The destinations checked (original), or the one staging goes to (its first). */
  destinationIds: string[];
  choices: Pick<ReplayChoices, "failed" | "matched">;
  overrides: ReturnType<typeof draftOverrides>;
}): Promise<SentReplay> {
  const { eventId, environment, customUrl, destinationIds, choices, overrides } = request;
  const edits = overrides ? { overrides } : {};
  if (environment === "custom") return trpc().replays.create.mutate({ eventId, environment, customUrl, ...edits });
  if (environment === "staging") return trpc().replays.create.mutate({ eventId, environment, destinationId: destinationIds[0] ?? null, ...edits });
  const outcomes = await Promise.all(destinationRequests(destinationIds, choices).map((target) => trpc().replays.create.mutate({ eventId, ...target, ...edits })));
  // Resolutions only add up: once one answer says resolved, the event is.
  return { attempts: outcomes.flatMap((outcome) => outcome.attempts), eventResolved: outcomes.some((outcome) => outcome.eventResolved) };
}
