import cluster from "node:cluster";
import { setImmediate as nextTurn } from "node:timers/promises";

/** What a wrapping parent (scripts/pnpm-foreground.mjs) sends for each stop signal it gets. */
export interface RelayedStop {
  type: "rehook:stop";
  signal: NodeJS.Signals;
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

const isRelayedStop = (message: unknown): message is RelayedStop =>
  (message as RelayedStop | null)?.type === "rehook:stop" && STOP_SIGNALS.includes((message as RelayedStop).signal as (typeof STOP_SIGNALS)[number]);

/**
 * A wrapper started this process with an IPC channel: it must not keep the process alive (a
 * cluster worker's channel is its primary's, and stays as it is). Set explicitly, so listening
 * for the wrapper's messages does not take the reference back.
 */
export function releaseWrapperChannel(): void {
  if (!cluster.isWorker) process.channel?.unref();
}

/**
 * Calls `handler` on SIGINT and SIGTERM (every time, or the first time only with `once`): a
 * second call is what cuts a stop short. Under a wrapper (pnpm start) stop signals also come
 * relayed as messages, and a signal to the process group reaches this process, the wrapper and
 * pnpm, which passes its copy to the wrapper: one group signal is one signal here plus up to two
 * relayed copies. So a relayed stop is never a second signal while a signal came directly:
 * - the first relayed one starts the stop when no signal came directly (pnpm alone was signalled);
 * - a second relayed one is a real second signal only while none came directly (pnpm alone,
 *   twice: pnpm passes a second Ctrl-C on as SIGTERM), else a copy, ignored.
 * A relayed message is weighed two loop turns after it arrives: the group signal it may copy was
 * pending here before the wrapper could send it, and its handler runs by then (signals reach
 * the main thread, whose next return from a system call delivers them; libuv's pipe then wakes
 * the next turn's poll). No timer: a busy event loop delays both alike.
 * Returns what removes the handlers.
 */
export function onStopSignals(handler: (signal: NodeJS.Signals) => void, { once = false } = {}): () => void {
  let direct = 0;
  let relayed = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    direct += 1;
    if (once) remove();
    handler(signal);
  };
  const onMessage = (message: unknown) => {
    if (!isRelayedStop(message)) return;
    void nextTurn()
      .then(() => nextTurn())
      .then(() => {
        relayed += 1;
        if (direct > 0 || relayed > 2) return;
        if (once) remove();
        handler(message.signal);
      });
  };
  const remove = () => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
    process.off("message", onMessage);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  if (!cluster.isWorker && process.channel) process.on("message", onMessage);
  return remove;
}
