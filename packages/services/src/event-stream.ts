import { UserError, uuidv7Floor, uuidv7Timestamp } from "@rehook/core";
import { findOwnedEndpoint, fullEventsAfter, fullEventsByIds, type FullEvent } from "@rehook/db";
import type { ServiceContext } from "./context.js";

export type { FullEvent };

/** How far back a resumed stream looks before the last id seen: commits from several instances can land slightly out of id order. */
const RESUME_OVERLAP_MS = 5_000;
const PAGE = 100;

/**
 * An endpoint's events as they are captured, for `rehook listen`. With `after` (the last id
 * the client saw) it first sends what was captured since, from a little before that id
 * (the client drops ids it already has), then new events live from the LISTEN/NOTIFY bus.
 * Ends when `signal` aborts.
 */
export async function* endpointEventStream(
  ctx: Pick<ServiceContext, "orm" | "bus">,
  input: { userId: string; endpointId: string; after?: string | null; signal: AbortSignal },
): AsyncGenerator<FullEvent> {
  const endpoint = await findOwnedEndpoint(ctx.orm.em.fork(), input.userId, { id: input.endpointId });
  if (!endpoint) throw new UserError("not_found", `no endpoint with id ${input.endpointId}`);
  if (!ctx.bus) throw new UserError("unavailable", "event streams are not available on this server");
  // Listen first, so nothing committed while the backlog is read falls between the two.
  const pending: string[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = ctx.bus.subscribe((message) => {
    if (message.type !== "event.created" || message.endpointId !== input.endpointId) return;
    pending.push(message.id);
    wake?.();
  });
  const aborted = new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve(), { once: true }));
  const sent = new Set<string>();
  try {
    if (input.after) {
      let cursor = uuidv7Floor(uuidv7Timestamp(input.after).getTime() - RESUME_OVERLAP_MS);
      for (;;) {
        const page = await fullEventsAfter(ctx.orm.em.fork(), input.userId, input.endpointId, cursor, PAGE);
        for (const event of page) {
          sent.add(event.id);
          yield event;
        }
        if (page.length < PAGE || input.signal.aborted) break;
        cursor = page[page.length - 1]!.id;
      }
    }
    while (!input.signal.aborted) {
      if (pending.length === 0) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = undefined;
        continue;
      }
      const ids = pending.splice(0).filter((id) => !sent.has(id));
      for (const event of await fullEventsByIds(ctx.orm.em.fork(), input.userId, input.endpointId, ids)) {
        sent.add(event.id);
        yield event;
      }
      // Only the backlog overlap needs remembering; live ids are not repeated by the bus.
      if (sent.size > 10_000) sent.clear();
    }
  } finally {
    unsubscribe();
  }
}
