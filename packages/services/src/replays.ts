import {
  auditableUrl,
  editedReplayTarget,
  forwardableHeaders,
  hasOverrides,
  parseReplayOverrides,
  planReplay,
  replayTarget,
  notFoundMessage,
  UserError,
  uuidv7,
  withPrivateDestinationHint,
  type HeaderList,
  type PlannedSend,
  type ReplayEnvironment,
  type ReplayOverrides,
  type ReplayPathEdits,
  type ReplayPlan,
  type ReplaySource,
  type ReplayTargetName,
} from "@rehook/core";
import {
  findOwnedReplayAttempt,
  findReplaySource,
  insertReplayAttempt,
  isEventResolved,
  listReplaySummaries,
  resolveDeliveryByReplay,
  type ReplayAttempt,
  type ReplaySourceRow,
  type ReplaySummary,
} from "@rehook/db";
import { checkDestination, outboundTask, type DeliveryResult } from "@rehook/delivery";
import { recordAudit, type AuditedBy } from "./audit.js";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { replayEventInput } from "./schemas/replays.js";

export type { ReplaySummary };

/** A replay attempt: where it went, how the destination answered, and when. */
export interface ReplayAttemptView {
  id: string;
  eventId: string;
  environment: string;
  status: string;
  responseStatus: number | null;
  /** The answer's body as text (null: none). */
  responseBody: string | null;
  latencyMs: number | null;
  destinationUrl: string;
  /** The endpoint destination it went to (null: a staging host, localhost or a custom URL). */
  destinationId: string | null;
  error: string | null;
  replayedAt: Date;
  /** Sent with edits (method, headers, body, path or query) rather than as captured. */
  modified: boolean;
}

/** What one replay request made: one attempt, or one per destination (matched, failed). */
export interface ReplayOutcome {
  target: ReplayTargetName;
  attempts: ReplayAttemptView[];
  /** Every failed delivery of the event is resolved now (see core's eventResolved). */
  eventResolved: boolean;
}

export function replayAttemptView(attempt: ReplayAttempt, eventId: string): ReplayAttemptView {
  return {
    id: attempt.id,
    eventId,
    environment: attempt.environment,
    status: attempt.status,
    responseStatus: attempt.responseStatus,
    responseBody: attempt.responseBody ? attempt.responseBody.toString("utf8") : null,
    latencyMs: attempt.latencyMs,
    destinationUrl: attempt.destinationUrl,
    destinationId: attempt.destinationId,
    error: attempt.error,
    replayedAt: attempt.replayedAt,
    modified: attempt.modified,
  };
}

/** One attempt with its whole response and what was sent (bytes as base64, so they cross tRPC). */
export interface ReplayDetail extends ReplayAttemptView {
  responseHeaders: HeaderList | null;
  responseTruncated: boolean;
  responseBodyBase64: string | null;
  /** What was sent (null on older attempts and local replays). */
  requestMethod: string | null;
  requestHeaders: HeaderList | null;
  /** Null for a plain replay: it sent the event's own bytes. */
  requestBodyBase64: string | null;
}

const replayInput = replayEventInput.pick({ environment: true, destinationId: true, customUrl: true });

export function noSuchEvent(eventId: string): UserError {
  return new UserError("not_found", notFoundMessage("event", eventId));
}

/**
 * The checked URL a replay of this event goes to (with an edited path and query, if any): 400
 * for a request that is wrong in itself, 422 for one this endpoint cannot do or an address the
 * policy refuses.
 */
export async function checkedReplayTarget(
  ctx: Pick<ServiceContext, "addressPolicy">,
  source: ReplaySource,
  environment: ReplayEnvironment,
  customUrl: string | null | undefined,
  edits: ReplayPathEdits = {},
): Promise<string> {
  const target = editedReplayTarget(environment, source, customUrl, edits);
  if (!target.ok) throw new UserError(target.kind === "invalid" ? "validation_failed" : "unprocessable", target.reason);
  const checked = await checkDestination(target.url, ctx.addressPolicy);
  if (!checked.ok) throw new UserError("unprocessable", `replay target refused: ${withPrivateDestinationHint(checked.reason)}`);
  return checked.url;
}

/** A plan's refusal as the user's error: 400 for a request wrong or ambiguous in itself, 422 for one this event cannot do. */
function planRefusal(plan: Extract<ReplayPlan, { ok: false }>): UserError {
  return new UserError(plan.kind === "invalid" ? "validation_failed" : "unprocessable", plan.reason);
}

/** Each planned URL checked against the address policy before anything is sent (one refused: nothing goes). */
async function checkedSends(ctx: Pick<ServiceContext, "addressPolicy">, sends: PlannedSend[]): Promise<PlannedSend[]> {
  return Promise.all(
    sends.map(async (send) => {
      const checked = await checkDestination(send.url, ctx.addressPolicy);
      if (!checked.ok) throw new UserError("unprocessable", `replay target refused: ${withPrivateDestinationHint(checked.reason)}`);
      return { ...send, url: checked.url };
    }),
  );
}

/** Most bytes an edited body may have when the server names no limit (MAX_PAYLOAD_BYTES' default). */
const DEFAULT_MAX_EDITED_BODY_BYTES = 10 * 1024 * 1024;

export async function sendReplay(
  ctx: Pick<ServiceContext, "orm" | "outbound">,
  source: ReplaySourceRow,
  replay: {
    userId: string | null;
    environment: ReplayEnvironment;
    url: string;
    /** The endpoint destination this URL is (a replay there that delivers resolves its failed delivery). */
    destinationId?: string | null;
    jobId?: string | null;
    overrides?: ReplayOverrides | null;
    /** A replay someone asked for (not one of a bulk replay's, which records the job): its audit entry. */
    audited?: { teamId: string; by: AuditedBy };
  },
): Promise<ReplayAttempt> {
  const edits = replay.overrides ?? {};
  // An edited path or query is already in replay.url; it still makes the replay an edited one.
  const modified = hasOverrides(edits);
  // Edits replace the stored parts and then get the same treatment: hop-by-hop headers
  // dropped, Content-Length from the bytes sent, signed afresh over the body sent.
  const request = { ...source, method: edits.method ?? source.method, headers: edits.headers ?? source.headers, body: edits.body ?? source.body };
  // Through the same worker pool, safe agent and time limit as forwarding.
  const task = outboundTask(request, replay.url, ctx.outbound.options);
  const result: DeliveryResult = await ctx.outbound.pool.run(task);
  return ctx.orm.em.fork().transactional(async (em) => {
    const attempt = await insertReplayAttempt(em, {
      id: uuidv7(),
      eventId: source.id,
      userId: replay.userId,
      environment: replay.environment,
      destinationUrl: replay.url,
      destinationId: replay.destinationId ?? null,
      status: result.ok ? "delivered" : "failed",
      responseStatus: result.status,
      responseHeaders: result.headers,
      responseBody: result.body ? Buffer.from(result.body) : null,
      responseTruncated: result.truncated,
      latencyMs: result.latencyMs,
      error: result.error,
      jobId: replay.jobId ?? null,
      requestMethod: task.method,
      requestHeaders: task.headers,
      // A plain replay sends the event's own bytes, which never change: not stored twice.
      requestBody: modified ? Buffer.from(task.body) : null,
      modified,
    });
    // Delivered to the destination whose delivery failed: that failure is resolved, in the same transaction.
    if (attempt.status === "delivered" && attempt.destinationId) {
      await resolveDeliveryByReplay(em, { eventId: source.id, destinationId: attempt.destinationId, replayId: attempt.id, at: attempt.replayedAt });
    }
    if (replay.audited) await recordAudit(em, replay.audited.by, replayEntry(replay.audited.teamId, source.id, attempt, modified));
    return attempt;
  });
}

/** A replay's audit entry: where it went and whether it was edited (never what it sent). */
export function replayEntry(teamId: string, eventId: string, attempt: Pick<ReplayAttempt, "id" | "environment" | "destinationUrl" | "destinationId" | "status">, edited: boolean) {
  return {
    teamId,
    action: "event.replay" as const,
    target: { type: "event" as const, id: eventId, name: null },
    changes: {
      replay_id: attempt.id,
      environment: attempt.environment,
      ...(attempt.destinationId ? { destination_id: attempt.destinationId } : {}),
      target_url: auditableUrl(attempt.destinationUrl),
      edited,
      outcome: attempt.status,
    },
  };
}

/** What a replay request takes: the event, where to (see core's planReplay) and any edits. */
export interface ReplayEventRequest {
  teamId: string;
  userId: string;
  by?: AuditedBy;
  eventId: string;
  /** The target: original, staging, local, custom, matched or failed (left out: see core's requestedTarget). */
  environment?: string | null;
  destinationId?: string | null;
  customUrl?: string | null;
  overrides?: unknown;
}

/**
 * Sends a stored event again: its method, body bytes and headers, to the chosen target (one
 * of the endpoint's destinations, each destination it matched or whose delivery failed, a
 * staging host, localhost or a URL), or with `overrides` (edit-and-replay) replacing any of
 * them. Every URL is checked before anything is sent; the attempts go out together, each
 * recorded with what it sent and the destination it reached, whose failed delivery it
 * resolves when it delivered. Never touches the event itself, its status or the endpoint's health.
 */
export async function replayEventAttempts(ctx: Pick<ServiceContext, "orm" | "outbound" | "addressPolicy" | "maxPayloadBytes">, input: ReplayEventRequest): Promise<ReplayOutcome> {
  const request = parseInput(replayInput, { environment: input.environment ?? undefined, destinationId: input.destinationId, customUrl: input.customUrl });
  const overrides = parseReplayOverrides(input.overrides, ctx.maxPayloadBytes ?? DEFAULT_MAX_EDITED_BODY_BYTES);
  const source = await findReplaySource(ctx.orm.em.fork(), input.teamId, input.eventId);
  if (!source) throw noSuchEvent(input.eventId);
  const plan = planReplay({ target: request.environment, destinationId: request.destinationId, customUrl: request.customUrl }, source, overrides ?? {});
  if (!plan.ok) throw planRefusal(plan);
  const sends = await checkedSends(ctx, plan.sends);
  const audited = { teamId: input.teamId, by: input.by };
  const settled = await Promise.allSettled(
    sends.map((send) => sendReplay(ctx, source, { userId: input.userId, environment: send.environment, url: send.url, destinationId: send.destinationId, overrides, audited })),
  );
  const failure = settled.find((result) => result.status === "rejected");
  if (failure) throw failure.reason;
  const attempts = settled.map((result) => replayAttemptView((result as PromiseFulfilledResult<ReplayAttempt>).value, source.id));
  return { target: plan.target, attempts, eventResolved: await isEventResolved(ctx.orm.em.fork(), source.id) };
}

/**
 * replayEventAttempts for a request that makes one attempt (a destination, a staging host,
 * localhost or a URL): that attempt. A target that fans out (matched, failed) is refused here.
 */
export async function replayEvent(ctx: Pick<ServiceContext, "orm" | "outbound" | "addressPolicy" | "maxPayloadBytes">, input: ReplayEventRequest): Promise<ReplayAttemptView> {
  if (input.environment === "matched" || input.environment === "failed") {
    throw new UserError("validation_failed", `target "${input.environment}" can make several attempts: ask for all of them.`);
  }
  return (await replayEventAttempts(ctx, input)).attempts[0]!;
}


/**
 * What the dashboard's "Edit request" starts from: the event's method, the headers a replay
 * would send (hop-by-hop and, unless kept, proxy headers already dropped), its body bytes,
 * and the captured sub-path and query a replay appends to the destination.
 */
export async function editableReplayRequest(
  ctx: Pick<ServiceContext, "orm">,
  input: { teamId: string; userId: string; eventId: string },
): Promise<{ method: string; headers: HeaderList; bodyBase64: string; path: string; query: string }> {
  const source = await findReplaySource(ctx.orm.em.fork(), input.teamId, input.eventId);
  if (!source) throw noSuchEvent(input.eventId);
  return {
    method: source.method,
    headers: forwardableHeaders(source.headers, { keepProxyHeaders: source.keepProxyHeaders }),
    bodyBase64: source.body.toString("base64"),
    path: source.path,
    query: source.query,
  };
}

const listInput = z.object({
  eventId: z.string().uuid().optional(),
  endpointId: z.string().uuid().optional(),
  status: z.enum(["delivered", "failed"]).optional(),
  before: z.string().uuid().optional(),
  limit: z.number().int().min(1).max(100).default(50),
});

/** The user's replay attempts, newest first (one event's, one endpoint's, or all). */
export async function listReplays(
  ctx: Pick<ServiceContext, "orm">,
  input: { teamId: string; eventId?: string; endpointId?: string; status?: string; before?: string; limit?: number },
): Promise<{ replays: ReplaySummary[]; nextCursor: string | null }> {
  const { teamId, ...rest } = input;
  const { limit, ...filter } = parseInput(listInput, rest);
  const rows = await listReplaySummaries(ctx.orm.em.fork(), teamId, filter, limit + 1);
  const replays = rows.slice(0, limit);
  return { replays, nextCursor: rows.length > limit ? replays[replays.length - 1]!.id : null };
}

/** One attempt with its whole response. */
export async function getReplay(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; attemptId: string }): Promise<ReplayDetail> {
  const attempt = await findOwnedReplayAttempt(ctx.orm.em.fork(), input.teamId, input.attemptId);
  if (!attempt) throw new UserError("not_found", `There is no replay with the id ${input.attemptId}. Check the id, or list replays to find it.`);
  return {
    ...replayAttemptView(attempt, attempt.event.id),
    responseHeaders: attempt.responseHeaders,
    responseTruncated: attempt.responseTruncated,
    responseBodyBase64: attempt.responseBody ? attempt.responseBody.toString("base64") : null,
    requestMethod: attempt.requestMethod,
    requestHeaders: attempt.requestHeaders,
    requestBodyBase64: attempt.requestBody ? attempt.requestBody.toString("base64") : null,
  };
}
