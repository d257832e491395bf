import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadConfig, silentLogger } from "@rehook/core";
import { EventBus } from "@rehook/db";
import { createEventBodyRoute, createOriginPolicy, createPublicApi, matchEventBodyRoute, RequestBodies, type StreamBounds } from "@rehook/http";
import type { Services } from "@rehook/services";
import { createTrpcHandler } from "@rehook/server";
import type { TestServer } from "./test-server.js";

export interface StreamInstance {
  url: string;
  /** This instance's bus: it identifies the instance (its stream slots). */
  bus: EventBus;
  /** Every response this instance started, in order (to watch what it holds for a client). */
  responses: Array<{ url: string; res: ServerResponse }>;
  close(): Promise<void>;
}

/**
 * A second instance on a test server's database that serves the streaming routes (the public
 * API, /trpc and the raw body download) with the handlers the real server uses, but with
 * stream bounds of the test's choosing, so dropping a client is seen in milliseconds rather
 * than after the default 30 s. Events captured by the test server reach it over the bus.
 */
export async function startStreamInstance(t: TestServer, streamBounds: Partial<StreamBounds>): Promise<StreamInstance> {
  const bus = await EventBus.connect(t.db.url);
  // The test server's graph with this instance's own bus (its stream slots are this instance's).
  const services: Services = Object.freeze({ ...t.rehook.services, bus });
  const bodies = RequestBodies.fromConfig(loadConfig({}, ""));
  const api = createPublicApi({ services, baseUrl: t.rehook.url, logger: silentLogger, enabled: true, requestsPerMinute: 100_000, streamBounds, bodies });
  const trpc = createTrpcHandler({
    services,
    bodies,
    baseUrl: t.rehook.url,
    origins: createOriginPolicy({ origins: [new URL(t.rehook.url).origin] }),
    trustedProxyHops: 0,
    logger: silentLogger,
    streamBounds,
  });
  const body = createEventBodyRoute({ services, streamBounds });
  const responses: StreamInstance["responses"] = [];
  const route = (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "/").split("?")[0]!;
    const bodyOf = matchEventBodyRoute(path);
    if (bodyOf) return body(req, res, bodyOf);
    return path.startsWith("/trpc/") ? trpc.handle(req, res) : api.handle(req, res);
  };
  const server = createServer((req, res) => {
    responses.push({ url: req.url ?? "", res });
    route(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bus,
    responses,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await bus.close();
    },
  };
}
