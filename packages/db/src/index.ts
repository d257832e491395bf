export * from "./entities/index.js";
export { createOrm, migrate, ormPoolStats, pendingMigrations, type Orm, type OrmOptions } from "./orm.js";
export { createPool, isDatabaseReachable, poolStats, withMigrationLock, withTransaction, type Pool, type PoolClient } from "./pool.js";
export { openDatabase, type Database, type DatabaseOptions } from "./database.js";
export { isTransientConnectError, waitForDatabase, type DatabaseWait, type WaitClock } from "./wait-for-database.js";
export { startEmbeddedPostgres, type EmbeddedDatabase, type EmbeddedOptions } from "./embedded-postgres.js";
export { runningPostmaster, type Postmaster } from "./postmaster.js";
export {
  GroupCommitWriter,
  isConnectionError,
  type CapturedRequest,
  type CaptureWriteResult,
  type EndpointIngress,
  type ForwardingSettings,
  type GroupCommitOptions,
  type FastPathLease,
} from "./capture-writer.js";
export * from "./queries/users.js";
export * from "./queries/audit-log.js";
export * from "./queries/invites.js";
export * from "./queries/endpoints.js";
export * from "./queries/deliveries.js";
export * from "./queries/destinations.js";
export * from "./queries/event-status.js";
export { BUS_CHANNEL, EventBus, type BusListener, type BusMessage } from "./event-bus.js";
export { endpointIdsBySlug } from "./endpoint-slugs.js";
export { DuplicateRowError } from "./duplicate-row.js";
export type { EntityManager } from "@mikro-orm/postgresql";
export * from "./queries/events.js";
export { findOwnedAttempt, MAX_LISTED_ATTEMPTS, ownedEventAttempts, ownedEventDeliveries, type DeliveryAttemptDetail, type DeliveryAttemptSummary, type EventDelivery, type FilterReason, type ListedDelivery } from "./queries/event-deliveries.js";
export * from "./queries/api-keys.js";
export * from "./queries/notification-settings.js";
export * from "./queries/replays.js";
export * from "./queries/local-listeners.js";
export * from "./queries/delivery-resolution.js";
export * from "./queries/notifications.js";
export type { CapturedRequestFields } from "./queries/captured-request.js";
export * from "./queries/retries.js";
export { Poller } from "./jobs/poller.js";
export { enqueueJob, enqueueJobWith, type NewJob } from "./jobs/queue.js";
export { JobRunner, type JobHandler, type JobRunnerOptions, type JobVerdict, type RunningJob } from "./jobs/runner.js";
export * from "./queries/sessions.js";
export * from "./queries/dedup-keys.js";
export { ensureEventPartitions, eventPartitions, type EventPartition } from "./partitions.js";
export * from "./queries/event-storage.js";
export * from "./queries/event-activity.js";
export * from "./queries/event-search-index.js";
export * from "./queries/teams.js";
export * from "./queries/alerts.js";
