import { DEFAULT_ALERT_SEND_LIMITS, type Config, type Logger } from "@rehook/core";
import { AttemptLimiter, configurePasswordHashing, createSessionManager, DEFAULT_HASH_CONCURRENCY, LoginThrottle, OpenIdProvider } from "@rehook/auth";
import {
  countPendingEvents,
  createPool,
  endpointIdsBySlug,
  ensureEventPartitions,
  EventBus,
  GroupCommitWriter,
  JobRunner,
  openDatabase,
  ormPoolStats,
  poolStats,
  type Database,
  type Pool,
} from "@rehook/db";
import { AlertPoster, createDeliveryPool, createSmtpMailer, defaultDeliveryThreads, DEFAULT_MAX_IN_FLIGHT, DeliveryDispatcher, Notifier } from "@rehook/delivery";
import { RehookMetrics } from "@rehook/http";
import {
  activityCompaction,
  countsCompaction,
  createServices,
  endpointPurge,
  eventRetention,
  IngressRules,
  createCapturePool,
  KnownSlugs,
  scheduleUpkeep,
  alertWatch,
  searchIndexing,
  sessionPurge,
  dedupKeyPurge,
  auditRetention,
  requireDefaultTeam,
  type Services,
} from "@rehook/services";
import { outboundOptions } from "./replay-outbound.js";

/** Everything one Rehook process runs besides its HTTP servers, and the service graph built on it. */
export interface Infrastructure {
  database: Database;
  /** The raw pool of the hot paths: capture, claims, completions, jobs. */
  pool: Pool;
  metrics?: RehookMetrics;
  dispatcher: DeliveryDispatcher;
  jobs: JobRunner;
  bus: EventBus;
  knownSlugs: KnownSlugs;
  services: Services;
  /** Lets everything go, in the order it must (jobs, bus, writer, dispatcher, workers, pools, database). */
  release(): Promise<void>;
}

export interface InfrastructureOptions {
  /** Processes serving PORT side by side: delivery threads and password hashes are shared out among them. */
  processes: number;
  /** The clock sign-ins are checked by (ID token expiry, invites); tests move it (unset: Date.now). */
  now?: () => number;
}

/** Opens the database (migrating it) and starts what runs in the background: delivery, jobs, the event bus. */
export async function openInfrastructure(config: Config, logger: Logger, options: InfrastructureOptions): Promise<Infrastructure> {
  const { processes } = options;
  // A capture's work on a large body (sender detection, routing filters) runs here, off the event loop.
  // Made first: a missing worker refuses the start before anything is opened. Its thread starts on the
  // first such capture; a failure to start it fails those captures (503), logged here.
  const capturePool = createCapturePool({ onError: (error) => logger.error("capture worker failed", { error: error.message }) });
  const hashes = config.passwordHashConcurrency ?? (processes > 1 ? Math.max(1, Math.floor(DEFAULT_HASH_CONCURRENCY / processes)) : undefined);
  if (hashes) configurePasswordHashing({ concurrency: hashes });
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    migrate: true,
    log: (message) => logger.info(message),
    wait: { timeoutMs: config.databaseWaitMs, log: (message) => logger.warn(message) },
  });
  if (database.applied.length > 0) logger.info("applied migrations", { names: database.applied.join(",") });
  try {
    await requireDefaultTeam({ orm: database.orm }, config.sso);
  } catch (error) {
    await database.close();
    throw error;
  }
  const pool = createPool({
    databaseUrl: database.url,
    max: config.databasePoolSize,
    onError: (error) => logger.warn("database connection lost", { error: error.message }),
  });
  // One registry per server (tests run several in one process). Pending events come from
  // event_counts (a few rows per endpoint), cached 5 s; the pools are read in memory.
  const metrics = config.metricsEnabled
    ? new RehookMetrics({
        logger,
        pendingEvents: () => countPendingEvents(pool),
        pools: () => [
          { pool: "capture", stats: poolStats(pool) },
          { pool: "orm", stats: ormPoolStats(database.orm) },
        ],
      })
    : undefined;
  // A batch occupies its worker slot until its slowest send ends: with a slot for every
  // delivery the dispatcher may run (plus replays and chat posts), sends held by slow
  // destinations never queue the others' batches behind them.
  const deliveries = createDeliveryPool({ threads: defaultDeliveryThreads(processes), concurrentPerThread: DEFAULT_MAX_IN_FLIGHT + 256 });
  // Results are announced on the bus by the statement that stores them, like captures.
  const dispatcher = new DeliveryDispatcher({
    db: pool,
    deliveries,
    timeoutMs: config.forwardTimeoutMs,
    maxInFlightPerDestination: config.maxInFlightPerDestination,
    allowPrivate: config.allowPrivateDestinations,
    logger,
    metrics,
  });
  const writer = new GroupCommitWriter(pool, {
    fastPath: { leaseMs: dispatcher.leaseMs, hasRoom: () => dispatcher.hasRoom() },
    metrics,
  });
  dispatcher.start();
  const notifier = new Notifier({
    db: pool,
    deliveries,
    baseUrl: config.baseUrl,
    allowPrivate: config.allowPrivateDestinations,
    logger,
    postTimeoutMs: Math.min(10_000, config.forwardTimeoutMs),
    metrics,
  });
  const mailer = config.smtp ? createSmtpMailer({ ...config.smtp, timeoutMs: Math.min(10_000, config.forwardTimeoutMs) }) : undefined;
  const alerts = new AlertPoster({
    db: pool,
    deliveries,
    baseUrl: config.baseUrl,
    allowPrivate: config.allowPrivateDestinations,
    ...(mailer ? { mailer } : {}),
    logger,
    postTimeoutMs: Math.min(10_000, config.forwardTimeoutMs),
    metrics,
    limits: { ...DEFAULT_ALERT_SEND_LIMITS, emailsPerTeamPerHour: config.alertEmailsPerTeamPerHour, emailsPerHour: config.alertEmailsPerHour },
    ...(options.now ? { now: options.now } : {}),
  });
  // Background work other than forwarding (whose queue is the deliveries table): chat posts, bulk replays, purges.
  const jobs = new JobRunner({ db: pool, logger });
  // Today's partition must exist before the first capture; the retention job keeps the days ahead.
  const partitions = await ensureEventPartitions(pool, Date.now());
  for (const skipped of partitions.skipped) logger.warn("could not create an events partition", skipped);
  await scheduleUpkeep(pool);
  const bus = await EventBus.connect(database.url, (error) => logger.warn("event bus connection lost, reconnecting", { error: error.message }));
  const ingressRules = new IngressRules();
  const knownSlugs = new KnownSlugs({ lookup: (slugs) => endpointIdsBySlug(pool, slugs) });
  bus.subscribe((message) => {
    if (message.type !== "endpoint.changed") return;
    ingressRules.forgetEndpoint(message.id);
    knownSlugs.endpointChanged(message.id, message.change);
  });
  // Changes announced while the bus was away went unheard.
  bus.onReconnect(() => {
    ingressRules.clear();
    knownSlugs.clear();
  });
  const services = createServices({
    orm: database.orm,
    writer,
    ingressRules,
    capturePool,
    baseUrl: config.baseUrl,
    captureBaseUrl: config.captureBaseUrl,
    addressPolicy: { allowPrivate: config.allowPrivateDestinations },
    retentionDays: config.retentionDays,
    forwarder: dispatcher,
    sessions: createSessionManager({ entityManager: () => database.orm.em.fork(), secureCookies: config.secureCookies }),
    throttles: {
      login: new LoginThrottle(),
      signup: new AttemptLimiter({ maxFailures: config.signupsPerAddressPerHour, windowMs: 60 * 60_000 }),
    },
    signup: config.signup,
    passwordLogin: config.passwordLogin,
    ...(config.sso ? { sso: { config: config.sso, provider: new OpenIdProvider({ ...config.sso, ...(options.now ? { now: options.now } : {}) }) } } : {}),
    ...(options.now ? { now: options.now } : {}),
    bus,
    chatHooksBase: config.chatHooksBase,
    maxPayloadBytes: config.maxPayloadBytes,
    outbound: { pool: deliveries, options: outboundOptions(config) },
    chat: notifier,
    alerts,
    emailAlerts: mailer !== undefined,
    logger,
    wakeJobs: () => jobs.wake(),
  });
  jobs.register(notifier.handler());
  jobs.register(alerts.handler());
  jobs.register(alertWatch({ pool, orm: database.orm, ...(options.now ? { now: options.now } : {}) }));
  jobs.register(services.bulkReplays.handler());
  jobs.register(sessionPurge(pool));
  jobs.register(dedupKeyPurge(pool));
  jobs.register(auditRetention(pool, config.auditRetentionDays));
  jobs.register(endpointPurge(pool));
  jobs.register(countsCompaction(pool));
  jobs.register(activityCompaction(pool));
  jobs.register(eventRetention({ pool, logger, defaultDays: config.retentionDays }));
  jobs.register(searchIndexing({ pool, logger }));
  jobs.start();
  return {
    database,
    pool,
    ...(metrics ? { metrics } : {}),
    dispatcher,
    jobs,
    bus,
    knownSlugs,
    services,
    async release() {
      await jobs.stop();
      await bus.close();
      // Before the writer drains: no capture waits on the worker once the last rows are written.
      await capturePool.close();
      await writer.drain();
      await dispatcher.stop();
      await deliveries.close();
      mailer?.close();
      await pool.end();
      await database.close();
    },
  };
}
