import type { Config, Logger } from "@rehook/core";
import { startServer, type RehookServer, type StartOptions } from "@rehook/server";
import { dashboardBuildDir } from "../dashboard-build.js";

export interface ServeOptions {
  /** Processes serving PORT side by side (1 without --workers). */
  processes: number;
  /** Called once the server listens. */
  listening(server: RehookServer): void;
  /** Registers what asks this process to stop: signals for a lone process, the primary's messages for a worker. */
  onStopRequest(stop: (signal: NodeJS.Signals) => void): void;
  /** What GET /metrics renders (a worker: the whole instance's, through the primary). */
  metricsScrape?: StartOptions["metricsScrape"];
}

/** Serves until asked to stop, then finishes the requests in flight and releases everything. */
export async function serveUntilStopped(config: Config, logger: Logger, options: ServeOptions): Promise<void> {
  const rehook = await startServer(config, logger, {
    processes: options.processes,
    dashboardBuild: dashboardBuildDir(),
    ...(options.metricsScrape ? { metricsScrape: options.metricsScrape } : {}),
  });
  options.listening(rehook);
  await new Promise<void>((resolve, reject) => {
    let stopping = false;
    let cutShort = false;
    options.onStopRequest((signal) => {
      if (cutShort) return;
      if (stopping) {
        // Impatience, not a crash: the requests in flight are dropped, but the embedded database still stops.
        cutShort = true;
        logger.warn(`second ${signal}: not waiting for requests in flight; stopping the database, then exiting`);
        rehook.stopNow().then(
          () => process.exit(130),
          (error: unknown) => {
            logger.error("could not stop the database", { error: String(error) });
            process.exit(1);
          },
        );
        return;
      }
      stopping = true;
      const close = () => {
        logger.info("finishing requests in flight, then stopping");
        // Once cut short, the orderly stop's failures (its database is gone) are expected: stopNow decides the exit.
        rehook.close().then(resolve, (error: unknown) => (cutShort ? undefined : reject(error)));
      };
      // SIGTERM comes from orchestrators: /readyz answers 503 for a while first, so the load
      // balancer stops sending before the port closes. SIGINT (Ctrl-C at a terminal) closes at once.
      if (signal === "SIGTERM" && config.shutdownDrainMs > 0) {
        rehook.drain(config.shutdownDrainMs);
        logger.info(`${signal} received: draining for ${config.shutdownDrainMs} ms (/readyz answers 503), then stopping`);
        setTimeout(close, config.shutdownDrainMs);
      } else {
        logger.info(`${signal} received`);
        close();
      }
    });
  });
}
