import { subscribe, unsubscribe } from "node:diagnostics_channel";
import { existsSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import type { BodyBudget, Config, Logger } from "@rehook/core";
import { isDatabaseReachable, pendingMigrations, type Database, type JobRunner, type Pool } from "@rehook/db";
import {
  answerClientError,
  createCaptureHandler,
  createEventBodyRoute,
  createEventExportRoute,
  createHealthHandler,
  createReadinessHandler,
  createMetricsHandler,
  createOriginPolicy,
  createPublicApi,
  createReplayRoute,
  DelayedAnswers,
  openApiDocument,
  RehookMetrics,
  type MetricsScrape,
  RequestBodies,
  sendError,
  type DashboardHostRule,
  type OriginPolicy,
} from "@rehook/http";
import type { DeliveryDispatcher } from "@rehook/delivery";
import { captureRequest, KnownSlugs, type Services } from "@rehook/services";
import { openInfrastructure } from "./infrastructure.js";
import { createMetricsListener, createRequestListener } from "./request-listener.js";
import { createRemixHandler, loadRemixBuild } from "./remix-handler.js";
import { createStaticHandler } from "./static-files.js";
import { createTrpcHandler } from "./trpc-handler.js";

export interface RehookServer {
  server: Server;
  /** Where the server actually listens (PORT=0 picks a free port). */
  url: string;
  /** Where GET /metrics is served when METRICS_PORT is set (METRICS_PORT=0 picks a free port). */
  metricsUrl?: string;
  database: Database;
  /** The service graph this server runs (tests build a second instance's routes from it). */
  services: Services;
  /** What forwarding holds in memory (tests, diagnostics). */
  delivery: Pick<DeliveryDispatcher, "heldRetries" | "load">;
  /** Background jobs running on this instance (tests, diagnostics). */
  jobs: Pick<JobRunner, "runningCount" | "stopping">;
  /** Request body bytes held in memory now, and the most this process allows, in all and per slice (tests, diagnostics). */
  bodyBudget: Pick<BodyBudget, "used" | "limit" | "usage">;
  /**
   * Starts shutdown's first step, to last `forMs` (SHUTDOWN_DRAIN_MS): /readyz answers 503
   * "draining" while every route still serves, except that open event streams (live feed,
   * /api/v1 stream) end, telling their clients to reconnect after `forMs` + STREAM_RESTART_RETRY_MS, and new ones answer 503.
   */
  drain(forMs?: number): void;
  /** Stops taking connections, lets the requests in flight finish (at most CLOSE_GRACE_MS), then releases everything. */
  close(): Promise<void>;
  /**
   * A second stop request: drops every connection and stops the embedded PostgreSQL now,
   * without waiting for the work in flight (close() goes on, but nothing waits for it).
   */
  stopNow(): Promise<void>;
}

// Slow clients must not hold sockets open: headers within 10 s, the whole request within 60 s.
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 60_000;
const KEEP_ALIVE_TIMEOUT_MS = 5_000;
// How often node looks for connections past those timeouts (its default, 30 s, lets a slow-header client hold a socket for up to 40 s).
const CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
// How long closing waits for requests in flight before dropping their connections: a stop ends in bounded time.
const CLOSE_GRACE_MS = 10_000;

const SERVER_OPTIONS = {
  headersTimeout: HEADERS_TIMEOUT_MS,
  requestTimeout: REQUEST_TIMEOUT_MS,
  keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
  connectionsCheckingInterval: CONNECTIONS_CHECK_INTERVAL_MS,
  // The listener answers a missing Host with the JSON error shape instead of node's bare 400.
  requireHostHeader: false,
};

export interface Dashboard {
  trpc: ReturnType<typeof createTrpcHandler>;
  replay: ReturnType<typeof createReplayRoute>;
  eventBody: ReturnType<typeof createEventBodyRoute>;
  eventExport: ReturnType<typeof createEventExportRoute>;
  staticFiles: ReturnType<typeof createStaticHandler>;
  /** Absent when the Remix app has not been built. */
  pages?: ReturnType<typeof createRemixHandler>;
}

export function createHttpServer(deps: {
  ctx: Services;
  pool: Pool;
  config: Config;
  logger: Logger;
  origins: OriginPolicy;
  dashboard?: Dashboard;
  publicApi?: ReturnType<typeof createPublicApi>;
  /** True once shutdown has begun (readiness answers 503). */
  isDraining?: () => boolean;
  /** Counts captures; /metrics is served here unless METRICS_PORT serves it. */
  metrics?: RehookMetrics;
  /** What /metrics renders (unset: `metrics` itself; `--workers N`: the whole instance's). */
  scrape?: MetricsScrape;
  /** Custom responses' delays, released at shutdown. */
  delayedAnswers?: DelayedAnswers;
  /** Slugs checked before a capture's body is read (absent: every body is read first). */
  knownSlugs?: KnownSlugs;
  /** The request bodies the routes read (RequestBodies.fromConfig). */
  bodies: RequestBodies;
}): Server {
  const { ctx, pool, config, logger, origins, dashboard, publicApi, metrics, delayedAnswers, knownSlugs, bodies } = deps;
  const scrape = deps.scrape ?? metrics;
  const isDraining = deps.isDraining ?? (() => false);
  const listener = createRequestListener(
    {
      capture: createCaptureHandler({
        capture: (input) => captureRequest(ctx, input),
        maxPayloadBytes: config.maxPayloadBytes,
        maxHeaderCount: config.maxHeaderCount,
        trustedProxyHops: config.trustedProxyHops,
        logger,
        metrics,
        delayedAnswers,
        slugExists: knownSlugs && ((slug) => knownSlugs.exists(slug)),
        bodies,
        dashboardHost: dashboardHostRule(config, origins),
      }),
      health: createHealthHandler(),
      readiness: createReadinessHandler({
        isDraining,
        isDatabaseReachable: () => isDatabaseReachable(pool),
        pendingMigrations: () => pendingMigrations(ctx.orm),
      }),
      metrics: scrape && config.metricsPort === undefined ? createMetricsHandler(scrape, { token: config.metricsToken }) : undefined,
      trpc: dashboard?.trpc.handle,
      publicApi: publicApi?.handle,
      replay: dashboard?.replay,
      eventBody: dashboard?.eventBody,
      eventExport: dashboard?.eventExport,
      staticFiles: dashboard?.staticFiles,
      pages: dashboard?.pages ?? (dashboard ? dashboardNotBuilt : undefined),
    },
    { logger, origins, logRoutineRequests: config.logLevel === "debug", logRequests: config.logLevel === "debug" || config.logLevel === "info" },
  );
  const server = createServer(SERVER_OPTIONS, listener);
  // Node silently drops headers past 2000 by default; keep them all and let the handler answer 431.
  server.maxHeadersCount = 0;
  server.on("clientError", answerClientError);
  return server;
}

/** With capture URLs on a host of their own (CAPTURE_BASE_URL), what captures sent to the dashboard's host get. */
function dashboardHostRule(config: Config, origins: OriginPolicy): DashboardHostRule | undefined {
  if (config.captureBaseUrl === config.baseUrl) return undefined;
  return { isDashboardHost: (host) => origins.isOwnHost(host), refuse: !config.captureOnDashboardHost, captureBaseUrl: config.captureBaseUrl };
}

/** METRICS_PORT's server: GET /metrics only. */
function createMetricsServer(metrics: MetricsScrape, config: Config, logger: Logger): Server {
  const server = createServer(SERVER_OPTIONS, createMetricsListener(createMetricsHandler(metrics, { token: config.metricsToken }), { logger }));
  server.on("clientError", answerClientError);
  return server;
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/**
 * Stops taking connections and resolves once the open ones are gone. Node keeps serving a
 * kept-alive connection after close(), so a client that asks again at once (rehook listen
 * reconnecting its stream) could hold the server open for ever: from here on each response
 * closes its connection, and a connection whose response was in flight closes as soon as
 * that response is sent. Requests still running after CLOSE_GRACE_MS lose their connections.
 */
function closeServer(server: Server): Promise<void> {
  server.prependListener("request", (_req: IncomingMessage, res: ServerResponse) => {
    res.shouldKeepAlive = false;
  });
  const closeWhenIdle = (message: unknown) => {
    // Published before node marks the connection idle: look once it has.
    if ((message as { server?: unknown }).server === server) setImmediate(() => server.closeIdleConnections());
  };
  subscribe("http.server.response.finish", closeWhenIdle);
  const grace = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
  const closed = new Promise<void>((resolve) =>
    server.close(() => {
      clearTimeout(grace);
      unsubscribe("http.server.response.finish", closeWhenIdle);
      resolve();
    }),
  );
  server.closeIdleConnections();
  return closed;
}

function urlOf(host: string, port: number): string {
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}

async function dashboardNotBuilt(_req: IncomingMessage, res: ServerResponse): Promise<void> {
  sendError(res, 503, "unavailable", "The dashboard is not built. Run pnpm build and start the server again.");
}

async function createDashboard(ctx: Services, config: Config, origins: OriginPolicy, logger: Logger, buildDir: string | undefined, bodies: RequestBodies): Promise<Dashboard> {
  const options = { services: ctx, baseUrl: config.baseUrl, origins, trustedProxyHops: config.trustedProxyHops, bodies };
  const serverBuild = buildDir && path.join(buildDir, "server/index.js");
  // The API reference page reads the document from here, in-process: the server never fetches its own URLs.
  const document = config.publicApiEnabled ? openApiDocument(config.baseUrl) : null;
  let pages: Dashboard["pages"];
  if (serverBuild && existsSync(serverBuild)) pages = createRemixHandler(await loadRemixBuild(serverBuild), { ...options, apiDocument: () => document });
  else logger.warn("the dashboard is not built (run pnpm build): pages answer 503", { expected: serverBuild ?? "no dashboard build given" });
  return {
    trpc: createTrpcHandler({ ...options, logger }),
    replay: createReplayRoute({ services: ctx, origins, logger, trustedProxyHops: config.trustedProxyHops, bodies }),
    eventBody: createEventBodyRoute({ services: ctx }),
    eventExport: createEventExportRoute({ services: ctx, trustedProxyHops: config.trustedProxyHops }),
    staticFiles: buildDir ? createStaticHandler(path.join(buildDir, "client")) : async () => false,
    pages,
  };
}

export interface StartOptions {
  /**
   * Processes serving PORT side by side on this machine (`rehook start --workers N`): the
   * delivery threads and the password hashes a process runs by default are shared out among them.
   */
  processes?: number;
  /**
   * The dashboard's build (apps/web/build: server/ and client/). The server package never
   * imports the app: whoever starts it says where the built pages are (unset: pages answer 503).
   */
  dashboardBuild?: string;
  /** The clock sign-ins and upload rates are checked by (tests move it; unset: Date.now, and performance.now for rates). */
  now?: () => number;
  /** What GET /metrics renders, from this process's metrics (`--workers N`: the whole instance's); closed with the server. */
  metricsScrape?: (local: RehookMetrics) => MetricsScrape & { close?(): void };
}

/** Opens the database (migrating it), builds the services and listens on PORT. */
export async function startServer(config: Config, logger: Logger, options: StartOptions = {}): Promise<RehookServer> {
  const infra = await openInfrastructure(config, logger, { processes: options.processes ?? 1, ...(options.now ? { now: options.now } : {}) });
  const { services: ctx, pool, metrics, knownSlugs, dispatcher, jobs, database } = infra;
  // Without BASE_URL (local use) the dashboard also answers at loopback on the port actually bound.
  let boundPort: number | undefined;
  const origins = createOriginPolicy({ origins: config.dashboardOrigins, ...(config.baseUrlIsDefault ? { loopbackPort: () => boundPort } : {}) });
  const bodies = RequestBodies.fromConfig(config, options.now);
  const dashboard = await createDashboard(ctx, config, origins, logger, options.dashboardBuild, bodies);
  const publicApi = createPublicApi({
    bodies,
    services: ctx,
    baseUrl: config.baseUrl,
    logger,
    enabled: config.publicApiEnabled,
    requestsPerMinute: config.apiRateLimitPerMinute,
    trustedProxyHops: config.trustedProxyHops,
  });
  let draining = false;
  const delayedAnswers = new DelayedAnswers();
  const scrape = metrics && (options.metricsScrape?.(metrics) ?? metrics);
  const server = createHttpServer({ ctx, pool, config, logger, origins, dashboard, publicApi, metrics, scrape, delayedAnswers, knownSlugs, bodies, isDraining: () => draining });
  const metricsServer = scrape && config.metricsPort !== undefined ? createMetricsServer(scrape, config, logger) : undefined;
  // Everything after the HTTP server, in the order it must be let go (one list for both exits).
  const release = () => {
    (scrape as { close?(): void } | undefined)?.close?.();
    return infra.release();
  };

  let port: number;
  let metricsUrl: string | undefined;
  try {
    port = await listen(server, config.port, config.host);
    if (metricsServer) metricsUrl = urlOf(config.host, await listen(metricsServer, config.metricsPort!, config.host));
  } catch (error) {
    if (server.listening) await closeServer(server);
    await release();
    throw error;
  }
  boundPort = port;
  const url = urlOf(config.host, port);

  const drain = (forMs = 0) => {
    draining = true;
    // A stream never ends by itself: left open, it would hold the process for the whole stop.
    // Its clients are told to come back once the drain is over, this server has closed and a
    // new one is likely up (STREAM_RESTART_RETRY_MS): a standard EventSource retries a refused
    // connection, but gives up for good on a non-200, such as the drain's 503 or a proxy's 502.
    const reconnectAfterMs = forMs + config.streamRestartRetryMs;
    dashboard.trpc.closeStreams(reconnectAfterMs);
    publicApi.closeStreams(reconnectAfterMs);
  };
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      drain();
      // Stop taking requests, let the ones in flight finish (their rows commit), then release the database.
      const closed = Promise.all([closeServer(server), metricsServer && closeServer(metricsServer)]);
      // Held custom responses go now: their events are stored, and the server waits for them.
      delayedAnswers.releaseAll();
      await closed;
      await release();
    })();
    return closing;
  };
  return {
    server,
    url,
    ...(metricsUrl ? { metricsUrl } : {}),
    database,
    services: ctx,
    delivery: dispatcher,
    jobs,
    bodyBudget: bodies.budget,
    drain,
    close,
    async stopNow() {
      close().catch(() => undefined);
      server.closeAllConnections();
      metricsServer?.closeAllConnections();
      await database.closeNow();
    },
  };
}
