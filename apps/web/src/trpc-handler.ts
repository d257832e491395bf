import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { appRouter } from "@rehook/api";
import type { Logger } from "@rehook/core";
import { requestContext, type DashboardOptions } from "./dashboard-context.js";

/** The dashboard's procedures at /trpc: batched queries and mutations, subscriptions over SSE. */
export function createTrpcHandler(options: DashboardOptions & { logger: Logger }) {
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    createContext: ({ req, res }) => requestContext(req, res, options),
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") options.logger.error("procedure failed", { path: path ?? "?", error: error.cause?.stack ?? error.stack ?? error.message });
    },
  });
  // Open subscription streams never end by themselves: shutdown ends them.
  const streams = new Set<ServerResponse>();
  return {
    handle: async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      if (String(req.headers.accept ?? "").includes("text/event-stream")) {
        streams.add(res);
        res.once("close", () => streams.delete(res));
      }
      handler(req, res);
    },
    closeStreams(): void {
      for (const res of streams) res.end();
    },
  };
}
