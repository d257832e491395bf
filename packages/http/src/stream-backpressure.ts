import type { ServerResponse } from "node:http";

/** Bytes a streaming response may have waiting in memory for its client before the client is dropped. */
export const MAX_STREAM_QUEUED_BYTES = 8 * 1024 * 1024;
/** How long a streaming response's socket may refuse more bytes before the client is dropped. */
export const MAX_STREAM_BLOCKED_MS = 30_000;

export interface StreamBounds {
  maxQueuedBytes: number;
  maxBlockedMs: number;
}

export const DEFAULT_STREAM_BOUNDS: StreamBounds = { maxQueuedBytes: MAX_STREAM_QUEUED_BYTES, maxBlockedMs: MAX_STREAM_BLOCKED_MS };

export interface BackpressureWatch {
  /** Whether the socket is not taking bytes right now (the last write returned false and no 'drain' came yet). */
  readonly blocked: boolean;
  /** Resolves once the response takes bytes again (at once if it does), or when it is closed. */
  drained(): Promise<void>;
}

/**
 * Bounds what a client that does not read can cost. Every write to the response is watched
 * (also writes made by someone else, such as tRPC's SSE adapter): once write() returns false
 * a timer starts, and 'drain' stops it; if it runs out, or more than `maxQueuedBytes` wait in
 * memory, the response is destroyed, which closes the connection and ends the producer
 * through the request's 'close'. Writers still wait for `drained()` before writing more:
 * this is the bound, not the flow control.
 */
export function watchBackpressure(res: ServerResponse, bounds: Partial<StreamBounds> = {}, onDrop?: (reason: string) => void): BackpressureWatch {
  const { maxQueuedBytes, maxBlockedMs } = { ...DEFAULT_STREAM_BOUNDS, ...bounds };
  let blockedTimer: NodeJS.Timeout | undefined;
  let blocked = false;
  let waiters: Array<() => void> = [];

  const release = () => {
    blocked = false;
    clearTimeout(blockedTimer);
    blockedTimer = undefined;
    const woken = waiters;
    waiters = [];
    for (const wake of woken) wake();
  };
  const drop = (reason: string) => {
    if (res.destroyed) return;
    onDrop?.(reason);
    res.destroy();
  };

  const write = res.write;
  res.write = function watchedWrite(this: ServerResponse, ...args: Parameters<ServerResponse["write"]>): boolean {
    const accepted = (write as (...a: unknown[]) => boolean).apply(this, args);
    // Writes after the end (a producer that has not noticed yet) go nowhere and cost nothing.
    if (res.destroyed) return accepted;
    if (res.writableLength > maxQueuedBytes) {
      drop(`more than ${maxQueuedBytes} bytes waiting for a client that does not read`);
    } else if (!accepted && !blocked) {
      blocked = true;
      blockedTimer = setTimeout(() => drop(`the client read nothing for ${maxBlockedMs} ms`), maxBlockedMs);
      blockedTimer.unref();
    }
    return accepted;
  } as ServerResponse["write"];
  res.on("drain", release);
  res.once("close", release);

  return {
    get blocked() {
      return blocked;
    },
    drained() {
      if (!blocked || res.destroyed) return Promise.resolve();
      return new Promise((resolve) => waiters.push(resolve));
    },
  };
}
