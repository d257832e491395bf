import { REPLAY_ENVIRONMENTS } from "@rehook/core";
import { z } from "zod";

/** A replay attempt: where it went, how the destination answered, and when. */
export const replayAttempt = z.object({
  id: z.string(),
  eventId: z.string(),
  environment: z.string(),
  status: z.string(),
  responseStatus: z.number().nullable(),
  /** The answer's body as text (null: none). */
  responseBody: z.string().nullable(),
  latencyMs: z.number().nullable(),
  destinationUrl: z.string(),
  error: z.string().nullable(),
  replayedAt: z.date(),
  /** Sent with edits (method, headers or body) rather than as captured. */
  modified: z.boolean(),
});

/** What a replay from the server takes: the event, where to (an environment, a URL for custom), and any edits. */
export const replayEventInput = z.object({
  eventId: z.string(),
  environment: z.enum(REPLAY_ENVIRONMENTS, { message: `environment must be one of ${REPLAY_ENVIRONMENTS.join(", ")}` }),
  customUrl: z.string().nullish(),
  // Checked by core (parseReplayOverrides) with its own sentences and the server's body limit.
  overrides: z.unknown().optional(),
});
export type ReplayEventInput = z.input<typeof replayEventInput>;
