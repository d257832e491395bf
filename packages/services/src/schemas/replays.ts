import { MAX_RESOLUTION_NOTE_LENGTH, REPLAY_TARGETS, safeText, storableText } from "@rehook/core";
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
  /** The endpoint destination it went to (null: a staging host, localhost or a custom URL). */
  destinationId: z.string().nullable(),
  error: z.string().nullable(),
  replayedAt: z.date(),
  /** Sent with edits (method, headers, body, path or query) rather than as captured. */
  modified: z.boolean(),
});

/**
 * What a replay from the server takes: the event, where to (a target, one of the endpoint's
 * destinations, a URL for custom: see core's planReplay), and any edits.
 */
export const replayEventInput = z.object({
  eventId: z.string(),
  /** The target (REST: `target`). Left out: custom with a URL, the destination with destinationId. */
  environment: z.enum(REPLAY_TARGETS, { message: `environment must be one of ${REPLAY_TARGETS.join(", ")}` }).optional(),
  /** One of the endpoint's destinations (with original or staging). */
  destinationId: z.string().max(100).nullish(),
  customUrl: z.string().nullish(),
  // Checked by core (parseReplayOverrides) with its own sentences and the server's body limit.
  overrides: z.unknown().optional(),
});
export type ReplayEventInput = z.input<typeof replayEventInput>;

/**
 * What a replay request made: its target and every attempt (one per destination for
 * matched and failed), and whether the event reads resolved afterwards.
 */
export const replayOutcome = z.object({
  target: z.enum(REPLAY_TARGETS),
  attempts: z.array(replayAttempt),
  eventResolved: z.boolean(),
});

/** Marking one failed delivery of an event resolved, with a note saying what was done. */
export const resolveDeliveryInput = z.object({
  eventId: z.string(),
  destinationId: z.string(),
  note: safeText("note")
    .trim()
    .min(1, "note: say what was done about the failure (a note is required)")
    .max(MAX_RESOLUTION_NOTE_LENGTH, `note: at most ${MAX_RESOLUTION_NOTE_LENGTH} characters`),
});

/** A delivery marked resolved. */
export const deliveryResolution = z.object({
  eventId: z.string(),
  destinationId: z.string(),
  resolvedAt: z.date(),
  resolvedByUserId: z.string(),
  note: z.string(),
  /** Every failed delivery of the event is resolved now. */
  eventResolved: z.boolean(),
});

/** What a replay made from the caller's machine (the dashboard's browser, rehook listen) got back. */
export const localReplayResult = z.object({
  status: z.number().int().min(0).max(999).nullable(),
  body: z.string().max(256 * 1024).nullable(),
  latencyMs: z.number().int().min(0).max(3_600_000),
  // Text from the caller's machine: NUL or lone surrogates must not reach a PostgreSQL text column.
  error: z
    .string()
    .max(2_000)
    .nullable()
    .transform((error) => (error === null ? null : storableText(error))),
});

/** How a local replay reached the developer's machine: the dashboard's browser sent it, or `rehook listen` forwarded it. */
export const LOCAL_VIA = ["browser", "listen"] as const;
export type LocalVia = (typeof LOCAL_VIA)[number];

/** A URL the caller's machine sent to: shown in the history as text, so http(s) only and no credentials. */
const localUrl = z
  .string()
  .max(2_048, "local_url must be at most 2,048 characters")
  .refine((text) => {
    try {
      const url = new URL(text);
      return (url.protocol === "http:" || url.protocol === "https:") && url.username === "" && url.password === "";
    } catch {
      return false;
    }
  }, "local_url must be the http or https URL the request went to, without user:password@");

/** Recording a local replay: the event, where it went (the dashboard's port, or the URL), how, and the result (body and error may be left out). */
export const recordLocalReplayInput = z.object({
  eventId: z.string(),
  localPort: z.number().optional(),
  /** The URL actually requested (rehook listen: its --forward target with the captured path). */
  localUrl: localUrl.optional(),
  /** Unset: "listen" for an API key, "browser" for the dashboard's session. */
  via: z.enum(LOCAL_VIA, { message: `via must be one of ${LOCAL_VIA.join(", ")}` }).optional(),
  status: localReplayResult.shape.status,
  latencyMs: localReplayResult.shape.latencyMs,
  body: localReplayResult.shape.body.optional(),
  error: z.string().max(2_000).nullable().optional(),
  /** Chosen by the caller, so that a record sent again (its answer lost to a restart) is stored once. */
  attemptId: z.string().uuid("attempt_id must be a UUID").optional(),
});
