import cluster from "node:cluster";
import { availableParallelism } from "node:os";
import { MAX_WORKERS, parseWorkers, workersRule } from "@rehook/core";
import { UsageError } from "../cli-error.js";
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
    if (count === 1) {
      // Today's single process: no cluster, nothing forked.
      await serveUntilStopped(config, logger, {
        processes: 1,
        listening: (rehook) => {
          logger.info(`Rehook listening on ${rehook.url}`, { base_url: config.baseUrl });
          if (rehook.metricsUrl) logger.info(`metrics on ${rehook.metricsUrl}/metrics`);
        },
        onStopRequest: (stop) => {
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
        },
      });
    } else if (cluster.isWorker) {
      await runWorker(config, logger, count);
    } else {
      await runPrimary(config, logger, count);
    }
    return undefined;
  },
);
