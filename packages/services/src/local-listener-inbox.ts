import { uuidv7 } from "@rehook/core";
import { deleteLocalListener, insertLocalListener, LISTENER_RENEW_MS, renewLocalListeners } from "@rehook/db";
import type { ServiceContext } from "./context.js";

/** A Local replay handed to a listener: the record's id and the event to send. */
export interface LocalReplayRequest {
  attemptId: string;
  eventId: string;
}

/** Local replays a listener has not taken yet; more are dropped (the dashboard's wait says so). */
const MAX_WAITING_REPLAYS = 100;

/** The Local replays handed to one open `rehook listen` stream (see handLocalReplayToListener). */
export interface LocalReplayInbox {
  /** The listener's row in local_listeners. */
  readonly id: string;
  /** What arrived since the last take, oldest first. */
  take(): LocalReplayRequest[];
  /** How many wait to be taken. */
  waiting(): number;
  /** Called on each arrival (the stream wakes up). */
  onArrival: () => void;
}

/**
 * Registers an open stream as the member's listener for the endpoint and collects the Local
 * replays handed to it, until `signal` aborts: its row is renewed while the stream lives and
 * removed when it ends. The subscription starts before the row exists, so nothing handed over
 * once the row is visible can be missed.
 */
export async function openLocalReplayInbox(
  ctx: Pick<ServiceContext, "orm" | "bus" | "logger">,
  listener: { teamId: string; userId: string; keyId?: string; endpointId: string },
  signal: AbortSignal,
): Promise<LocalReplayInbox> {
  const id = uuidv7();
  const waiting: LocalReplayRequest[] = [];
  const inbox: LocalReplayInbox = { id, take: () => waiting.splice(0), waiting: () => waiting.length, onArrival: () => undefined };
  const unsubscribe = ctx.bus.subscribe((message) => {
    if (message.type !== "local_replay.requested" || message.listenerId !== id || waiting.length >= MAX_WAITING_REPLAYS) return;
    waiting.push({ attemptId: message.attemptId, eventId: message.eventId });
    inbox.onArrival();
  });
  const warn = (error: unknown) => ctx.logger?.warn("local listener row not updated", { listener: id, error: error instanceof Error ? error.message : String(error) });
  let renew: NodeJS.Timeout | undefined;
  const close = () => {
    unsubscribe();
    clearInterval(renew);
    deleteLocalListener(ctx.orm.em.fork(), id).catch(warn);
  };
  try {
    await insertLocalListener(ctx.orm.em.fork(), { id, teamId: listener.teamId, endpointId: listener.endpointId, userId: listener.userId, keyId: listener.keyId ?? null });
  } catch (error) {
    unsubscribe();
    throw error;
  }
  renew = setInterval(() => renewLocalListeners(ctx.orm.em.fork(), [id]).catch(warn), LISTENER_RENEW_MS);
  renew.unref();
  if (signal.aborted) close();
  else signal.addEventListener("abort", close, { once: true });
  return inbox;
}
