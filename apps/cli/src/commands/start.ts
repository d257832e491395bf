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
        logger.info(`${signal} received: finishing requests in flight, then stopping`);
        rehook.close().then(resolve, reject);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    return undefined;
  },
);
