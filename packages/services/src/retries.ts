import { notFoundMessage, UserError } from "@rehook/core";
import { announceEndpointChange, resumeOwnedEndpoint, retryFailedOfEndpoint, retryOwnedEvent } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { recordAudit, type AuditedBy } from "./audit.js";

/** What "retry now" did: the event waits as pending, due now (or until the endpoint is resumed). */
export interface RetryQueued {
  id: string;
  status: "pending";
  nextAttemptAt: Date;
  /** The endpoint's breaker holds forwarding: the attempt is queued and sent once it is resumed. */
  forwardingPaused: boolean;
  message: string;
}

const PAUSED_NOTE = "forwarding to this endpoint is paused: it is sent once the endpoint is resumed";

/**
 * Retry now: a new attempt of the event itself (not a replay), due at once. A failed event
 * goes back to pending and leaves the failed count until its new final outcome is counted.
 */
export async function retryEvent(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy; eventId: string }): Promise<RetryQueued> {
  const result = await ctx.orm.em.fork().transactional(async (em) => {
    const outcome = await retryOwnedEvent(em, input.teamId, input.eventId);
    if (outcome.kind === "queued") await recordAudit(em, input.by, { teamId: input.teamId, action: "event.retry", target: { type: "event", id: input.eventId, name: null } });
    return outcome;
  });
  switch (result.kind) {
    case "not_found":
      throw new UserError("not_found", notFoundMessage("event", input.eventId));
    case "not_applicable":
      if (!result.forwards) throw new UserError("unprocessable", `Event ${input.eventId} has no destination to retry: its endpoint only captures. Add a destination URL to the endpoint, or replay the event to a URL.`);
      if (result.inFlight) throw new UserError("conflict", `Event ${input.eventId} is being sent right now. Wait for this attempt's result.`);
      throw new UserError("conflict", `Event ${input.eventId} is ${result.status}, and only pending and failed events can be retried. Replay it instead.`);
    case "queued":
      return {
        id: input.eventId,
        status: "pending",
        nextAttemptAt: result.nextAttemptAt,
        forwardingPaused: result.forwardingPaused,
        message: result.forwardingPaused ? `queued, but ${PAUSED_NOTE}` : "queued: the next attempt starts within a few seconds",
      };
  }
}

/** Every failed event of the endpoint back to pending, due now; answers how many. */
export async function retryFailedEvents(
  ctx: Pick<ServiceContext, "orm">,
  input: { teamId: string; by?: AuditedBy; endpointId: string },
): Promise<{ count: number; forwardingPaused: boolean; message: string }> {
  const result = await ctx.orm.em.fork().transactional(async (em) => {
    const retried = await retryFailedOfEndpoint(em, input.teamId, input.endpointId);
    if (!retried) throw new UserError("not_found", notFoundMessage("endpoint", input.endpointId));
    await recordAudit(em, input.by, { teamId: input.teamId, action: "endpoint.retry_failed", target: { type: "endpoint", id: input.endpointId, name: null }, changes: { count: retried.count } });
    return retried;
  });
  const queued = `${result.count} failed event${result.count === 1 ? "" : "s"} queued`;
  return { ...result, message: result.forwardingPaused ? `${queued}, but ${PAUSED_NOTE}` : queued };
}

/**
 * Resumes a paused endpoint: each paused destination's breaker goes half-open with its count
 * kept, so a probe goes first, and its waiting events (new ones and scheduled retries, now due)
 * follow, oldest first, once a probe is delivered. Destinations that are not paused are left
 * as they are.
 */
export async function resumeEndpoint(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy; endpointId: string }): Promise<{ rescheduled: number }> {
  return ctx.orm.em.fork().transactional(async (em) => {
    const result = await resumeOwnedEndpoint(em, input.teamId, input.endpointId);
    if (!result) throw new UserError("not_found", notFoundMessage("endpoint", input.endpointId));
    await recordAudit(em, input.by, {
      teamId: input.teamId,
      action: "endpoint.resume",
      target: { type: "endpoint", id: input.endpointId, name: null },
      changes: { rescheduled: result.rescheduled, resumed: result.resumed.map((destination) => ({ destination_id: destination.id, consecutive_failures: destination.consecutiveFailures })) },
    });
    await announceEndpointChange(em, input.endpointId, "updated");
    return { rescheduled: result.rescheduled };
  });
}
