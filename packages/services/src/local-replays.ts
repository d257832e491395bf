import { DEFAULT_LOCAL_PORT, localReplayOrigin, replayTarget, UserError, uuidv7, type HeaderList } from "@rehook/core";
import { announceLocalReplay, DuplicateRowError, eventEndpointOf, findLiveLocalListener, findOwnedReplayAttempt, findReplaySource, insertReplayAttempt } from "@rehook/db";
import { z } from "zod";
import { recordAudit, type AuditedBy } from "./audit.js";
import type { ServiceContext } from "./context.js";
import { noSuchEvent, replayAttemptView, replayEntry, type ReplayAttemptView } from "./replays.js";
import { localReplayResult, recordLocalReplayInput, type LocalVia } from "./schemas/replays.js";
import { parseInput } from "./validation.js";

// Local replays reach the developer's own machine, which the server cannot: either a
// `rehook listen` of theirs forwards them (handed over through the event stream it holds
// open), or the dashboard's browser sends them itself. Both record the result here.

/** The browser's chosen local port: 3000 unless it says otherwise. */
const localPortInput = z.number().int().min(1).max(65_535).default(DEFAULT_LOCAL_PORT);

/** Who reported a local replay when the caller does not say: an API key is `rehook listen`, a session the dashboard's browser. */
export function defaultLocalVia(actor: { keyId?: string }): LocalVia {
  return actor.keyId ? "listen" : "browser";
}

/**
 * Records a local replay made from the caller's machine (by the dashboard's browser, or by
 * `rehook listen`), with its result, how it got there (`via`) and the URL it went to
 * (`localUrl`; without it, http://localhost:PORT and the path the original would use).
 */
export async function recordLocalReplay(
  ctx: Pick<ServiceContext, "orm">,
  input: {
    teamId: string;
    userId: string;
    by?: AuditedBy;
    eventId: string;
    localPort?: number;
    localUrl?: string;
    via?: LocalVia;
    attemptId?: string;
    result: { status: number | null; body: string | null; latencyMs: number; error: string | null };
  },
): Promise<ReplayAttemptView> {
  const result = parseInput(localReplayResult, input.result);
  const localPort = parseInput(localPortInput, input.localPort);
  const { attemptId, localUrl, via } = parseInput(recordLocalReplayInput.pick({ attemptId: true, localUrl: true, via: true }), {
    attemptId: input.attemptId,
    localUrl: input.localUrl,
    via: input.via,
  });
  const source = await findReplaySource(ctx.orm.em.fork(), input.teamId, input.eventId);
  if (!source) throw noSuchEvent(input.eventId);
  if (attemptId) {
    // Sent again (the first answer was lost): the stored record stands.
    const stored = await findOwnedReplayAttempt(ctx.orm.em.fork(), input.teamId, attemptId);
    if (stored && stored.event.id === source.id) return replayAttemptView(stored, source.id);
    if (stored) throw attemptIdTaken(attemptId);
  }
  const target = replayTarget("local", source, null, localPort);
  const attempt = await insertingLocalRecord(attemptId, () =>
    ctx.orm.em.fork().transactional(async (em) => {
      const stored = await insertReplayAttempt(em, {
        id: attemptId ?? uuidv7(),
        eventId: source.id,
        userId: input.userId,
        environment: "local",
        destinationUrl: localUrl ?? (target.ok ? target.url : `${localReplayOrigin(localPort)}/`),
        localVia: via ?? "browser",
        status: result.status !== null && result.status >= 200 && result.status < 300 ? "delivered" : "failed",
        responseStatus: result.status,
        responseHeaders: null,
        responseBody: result.body === null ? null : Buffer.from(result.body),
        responseTruncated: false,
        latencyMs: result.latencyMs,
        error: result.error ?? (result.status === null ? "no answer" : null),
        jobId: null,
        requestMethod: null,
        requestHeaders: null,
        requestBody: null,
        modified: false,
      });
      await recordAudit(em, input.by, replayEntry(input.teamId, source.id, stored, false));
      return stored;
    }),
  );
  return replayAttemptView(attempt, source.id);
}

/** Runs the insert of a local record; a caller-chosen id that another user's record holds is a conflict. */
async function insertingLocalRecord<T>(attemptId: string | undefined, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (attemptId && error instanceof DuplicateRowError) throw attemptIdTaken(attemptId);
    throw error;
  }
}

const attemptIdTaken = (attemptId: string) =>
  new UserError("conflict", `The attempt_id ${attemptId} is already used by another record: choose a new UUID for each attempt.`);

/** What the browser needs to perform a local replay itself. */
export async function localReplayRequest(
  ctx: Pick<ServiceContext, "orm">,
  input: { teamId: string; userId: string; eventId: string; localPort?: number },
): Promise<{ url: string; method: string; headers: HeaderList; keepProxyHeaders: boolean; bodyBase64: string }> {
  const localPort = parseInput(localPortInput, input.localPort);
  const source = await findReplaySource(ctx.orm.em.fork(), input.teamId, input.eventId);
  if (!source) throw noSuchEvent(input.eventId);
  const target = replayTarget("local", source, null, localPort);
  // A sub-path that could leave the destination's path is not sent anywhere, not even to "/".
  if (!target.ok) throw new UserError("unprocessable", target.reason);
  // The browser filters the headers as forwarding does, with the endpoint's proxy-header choice.
  return { url: target.url, method: source.method, headers: source.headers, keepProxyHeaders: source.keepProxyHeaders, bodyBase64: source.body.toString("base64") };
}

/** A Local replay handed to a listener (the dashboard waits for `attemptId`'s record), or none is connected. */
export type ListenerHandoff = { handed: true; attemptId: string } | { handed: false };

/**
 * Hands a Local replay of the event to the member's own `rehook listen` for its endpoint, when
 * one is connected (to any instance): it forwards the stored request to its own --forward
 * target and records the result under `attemptId`. Only the member's listeners in this team
 * are asked, never a teammate's (a Local replay means the machine of whoever clicked) nor
 * another team's. `{ handed: false }`: none is connected, the browser sends it instead.
 */
export async function handLocalReplayToListener(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; userId: string; eventId: string }): Promise<ListenerHandoff> {
  const em = ctx.orm.em.fork();
  const endpointId = await eventEndpointOf(em, input.teamId, input.eventId);
  if (!endpointId) throw noSuchEvent(input.eventId);
  const listenerId = await findLiveLocalListener(em, { teamId: input.teamId, endpointId, userId: input.userId });
  if (!listenerId) return { handed: false };
  const attemptId = uuidv7();
  await announceLocalReplay(em, { listenerId, attemptId, eventId: input.eventId });
  return { handed: true, attemptId };
}

/** The record of a handed-over Local replay once its listener sent it (null until then); not_found for an event not the team's. */
export async function localReplayOutcome(
  ctx: Pick<ServiceContext, "orm">,
  input: { teamId: string; eventId: string; attemptId: string },
): Promise<{ attempt: ReplayAttemptView | null }> {
  const em = ctx.orm.em.fork();
  if (!(await eventEndpointOf(em, input.teamId, input.eventId))) throw noSuchEvent(input.eventId);
  const stored = await findOwnedReplayAttempt(em, input.teamId, input.attemptId);
  return { attempt: stored && stored.event.id === input.eventId ? replayAttemptView(stored, input.eventId) : null };
}
