import { startServer } from "@rehook/web";
import { helpText, parseOptions } from "../args.js";
import type { Command } from "./types.js";

const spec = {
  usage: "rehook start",
  summary: "Apply migrations, then serve capture URLs, the API and the dashboard on PORT.",
  options: {},
};

export const startCommand: Command = {
  path: ["start"],
  summary: spec.summary,
  async run(argv, { config, logger, stdout }) {
    if (parseOptions(spec, argv) === "help") {
      stdout.write(`${helpText(spec)}\n`);
      return 0;
    }
    const rehook = await startServer(config, logger);
    logger.info(`Rehook listening on ${rehook.url}`, { base_url: config.baseUrl });

    return new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          logger.warn(`second ${signal}: exiting without waiting`);
          process.exit(130);
        }
        stopping = true;
        logger.info(`${signal} received: finishing requests in flight, then stopping`);
        rehook.close().then(
          () => resolve(0),
          (error: unknown) => {
            logger.error("shutdown failed", { error: String(error) });
            resolve(1);
          },
        );
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
  },
};
