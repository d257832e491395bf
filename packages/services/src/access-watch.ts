import { stillHasAccess, type BusMessage } from "@rehook/db";
import type { ServiceContext } from "./context.js";

/** Whose access a stream holds: a member of a team, maybe through one of its API keys. */
export interface StreamAccess {
  teamId: string;
  userId: string;
  keyId?: string;
}

/**
 * A signal that aborts with `signal`, or as soon as the holder loses access to the team: the
 * member is removed or leaves, or the key is revoked, on this or any other instance (the
 * change is announced on the bus when it commits). Each announcement that names this holder
 * is checked against the database, so a role change or a rejoin does not end the stream.
 */
export function untilAccessLost(ctx: Pick<ServiceContext, "orm" | "bus">, access: StreamAccess, signal: AbortSignal): AbortSignal {
  const lost = new AbortController();
  const concerns = (message: BusMessage) =>
    message.type === "access.changed" &&
    message.teamId === access.teamId &&
    (message.userId === access.userId || (access.keyId !== undefined && message.keyId === access.keyId));
  const unsubscribe = ctx.bus.subscribe((message) => {
    if (!concerns(message)) return;
    stillHasAccess(ctx.orm.em.fork(), access).then(
      (kept) => {
        if (!kept) lost.abort(new Error("access to the team was withdrawn"));
      },
      // The check itself failed: end the stream rather than keep one that may have lost access.
      (error: unknown) => lost.abort(error),
    );
  });
  const combined = AbortSignal.any([signal, lost.signal]);
  combined.addEventListener("abort", unsubscribe, { once: true });
  return combined;
}
