import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import { MAX_WORKERS, parseWorkers, workersRule } from "@rehook/core";
import { UsageError } from "../cli-error.js";
import { recordWhileRunning } from "../running-server.js";
import { startHintOf, startLine } from "../start-line.js";
import { onStopSignals } from "../stop-signals.js";
import { runPrimary } from "./cluster.js";
import { runWorker } from "./cluster-worker.js";
import { defineCommand } from "./define.js";
import { serveUntilStopped } from "./serve.js";

export const startCommand = defineCommand(
  ["start"],
  {
    usage: "rehook start [--workers N]",
    summary: "Apply migrations, then serve capture URLs, the API and the dashboard on PORT.",
    options: {
      workers: { type: "string", description: `processes serving PORT, 1 to ${MAX_WORKERS} or auto (one per core); default WORKERS or 1` },
    },
  },
  async (options, { config, logger }) => {
    const wanted = options.workers === undefined ? config.workers : parseWorkers(options.workers);
    if (wanted === undefined) throw new UsageError(`--workers ${workersRule}`);
    const count = wanted === "auto" ? Math.min(MAX_WORKERS, availableParallelism()) : wanted;
    // <data dir>/server.json tells the other rehook commands where this server listens and what it allows.
    const record = cluster.isWorker ? undefined : recordWhileRunning(config, logger);
    try {
      if (count === 1) {
        // Today's single process: no cluster, nothing forked.
        await serveUntilStopped(config, logger, {
          processes: 1,
          listening: (rehook) => {
            void startHintOf(rehook, config).then((hint) => {
              logger.info(startLine(rehook.url, hint), { base_url: config.baseUrl });
              if (rehook.metricsUrl) logger.info(`metrics on ${rehook.metricsUrl}/metrics`);
            });
            record?.listening(rehook.url);
          },
          onStopRequest: (stop) => {
            // Every time, not once: a second signal must reach serve (which still stops the database), not kill the process.
            onStopSignals(stop);
          },
        });
      } else if (cluster.isWorker) {
        await runWorker(config, logger, count);
      } else {
        await runPrimary(config, logger, count, (url) => record?.listening(url));
      }
    } finally {
      await record?.stopped();
    }
    return undefined;
  },
);
