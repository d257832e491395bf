import cluster from "node:cluster";
import type { Config, Logger } from "@rehook/core";
import { ClusterMetricsScrape } from "@rehook/http";
import { startHintOf } from "../start-line.js";
import { serveUntilStopped } from "./serve.js";

/** What a worker tells the primary. */
export interface ListeningMessage {
  type: "listening";
  url: string;
  metricsUrl?: string;
  /** What the start line says to do next (see start-line.ts). */
  hint?: string;
}

/** What the primary tells a worker: stop as a lone process would on this signal. */
export interface StopMessage {
  type: "stop";
  signal: NodeJS.Signals;
}

const isStop = (message: unknown): message is StopMessage => (message as StopMessage | null)?.type === "stop";

/** Every record of a worker names it: its lines interleave with the others' on the same stderr. */
function tagged(logger: Logger, worker: number): Logger {
  const tag = (write: Logger["info"]): Logger["info"] => (message, fields) => write(message, { ...fields, worker });
  return { debug: tag(logger.debug), info: tag(logger.info), warn: tag(logger.warn), error: tag(logger.error) };
}

/** One of `rehook start --workers N`'s processes: serves PORT (shared through the primary) until the primary says stop. */
export async function runWorker(config: Config, logger: Logger, processes: number): Promise<void> {
  // Signals are the primary's to handle: Ctrl-C reaches every process of the terminal's group,
  // systemd signals the whole control group; the primary passes each on once, as a message.
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => undefined);
  // A stop may come while the server is still starting: keep it until there is something to stop.
  const requested: NodeJS.Signals[] = [];
  let stop: ((signal: NodeJS.Signals) => void) | undefined;
  const onMessage = (message: unknown) => {
    if (!isStop(message)) return;
    if (stop) stop(message.signal);
    else requested.push(message.signal);
  };
  process.on("message", onMessage);
  try {
    await serveUntilStopped(config, tagged(logger, process.pid), {
      processes,
      // A scrape of any worker answers for the whole instance (the primary adds the workers up).
      metricsScrape: (local) => new ClusterMetricsScrape(local, config.metricsWorkersWaitMs),
      listening: (rehook) => {
        void startHintOf(rehook, config).then((hint) => {
          const message: ListeningMessage = { type: "listening", url: rehook.url, ...(rehook.metricsUrl ? { metricsUrl: rehook.metricsUrl } : {}), ...(hint ? { hint } : {}) };
          process.send!(message);
        });
      },
      onStopRequest: (handler) => {
        stop = handler;
        for (const signal of requested.splice(0)) handler(signal);
      },
    });
  } finally {
    // The channel to the primary is the last thing holding the process open (a failed start too).
    process.off("message", onMessage);
    cluster.worker!.disconnect();
  }
}
