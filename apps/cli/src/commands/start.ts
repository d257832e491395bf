import { startServer } from "@rehook/web";
import { defineCommand } from "./define.js";

export const startCommand = defineCommand(
  ["start"],
  {
    usage: "rehook start",
    summary: "Apply migrations, then serve capture URLs, the API and the dashboard on PORT.",
    options: {},
  },
  async (_options, { config, logger }) => {
    const rehook = await startServer(config, logger);
    logger.info(`Rehook listening on ${rehook.url}`, { base_url: config.baseUrl });
    if (rehook.metricsUrl) logger.info(`metrics on ${rehook.metricsUrl}/metrics`);
    await new Promise<void>((resolve, reject) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          logger.warn(`second ${signal}: exiting without waiting`);
          process.exit(130);
        }
        stopping = true;
        const close = () => {
          logger.info("finishing requests in flight, then stopping");
          rehook.close().then(resolve, reject);
        };
        // SIGTERM comes from orchestrators: /readyz answers 503 for a while first, so the load
        // balancer stops sending before the port closes. SIGINT (Ctrl-C at a terminal) closes at once.
        if (signal === "SIGTERM" && config.shutdownDrainMs > 0) {
          rehook.drain();
          logger.info(`${signal} received: draining for ${config.shutdownDrainMs} ms (/readyz answers 503), then stopping`);
          setTimeout(close, config.shutdownDrainMs);
        } else {
          logger.info(`${signal} received`);
          close();
        }
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    return undefined;
  },
);
