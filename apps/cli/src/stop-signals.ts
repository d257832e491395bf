import cluster from "node:cluster";

/** What this process tells a parent that wraps it (scripts/pnpm-foreground.mjs) when a stop signal reaches it. */
export interface StopSignalReport {
  type: "rehook:stop-signal";
  signal: NodeJS.Signals;
}

const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * A wrapper started this process with an IPC channel: it only carries reports, so it must not
 * keep the process alive (a cluster worker's channel is its primary's, and stays as it is).
 */
export function releaseWrapperChannel(): void {
  if (!cluster.isWorker) process.channel?.unref();
}

/**
 * Calls `handler` on SIGINT and SIGTERM (every time, or the first time only with `once`), and
 * reports each signal to a wrapping parent first: a signal to the process group reaches the
 * wrapper too, which then knows not to pass its copy on (a copy would count as a second signal).
 * Returns what removes the handlers.
 */
export function onStopSignals(handler: (signal: NodeJS.Signals) => void, { once = false } = {}): () => void {
  const listener = (signal: NodeJS.Signals) => {
    if (process.send && !cluster.isWorker && process.connected) {
      const report: StopSignalReport = { type: "rehook:stop-signal", signal };
      // The wrapper may be gone already (killed on its own): nothing to tell then.
      process.send(report, undefined, undefined, () => undefined);
    }
    if (once) remove();
    handler(signal);
  };
  const remove = () => {
    for (const signal of STOP_SIGNALS) process.off(signal, listener);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  return remove;
}
