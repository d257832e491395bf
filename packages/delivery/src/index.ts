export { createDeliveryPool, defaultDeliveryThreads, type DeliveryPool, type DeliveryPoolOptions } from "./pool.js";
export { BlockedAddressError, checkLiteralHost, createSafeAgent, safeLookup, type SafeAgentOptions } from "./safe-agent.js";
export { sendRequest } from "./send.js";
export type { DeliveryBatch, DeliveryResult, DeliveryTask, ResultMessage } from "./types.js";
export {
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_IN_FLIGHT_PER_DESTINATION,
  DeliveryDispatcher,
  deliveryTask,
  MAX_RECOVERY_BYTES_IN_FLIGHT,
  outboundTask,
  type DispatcherOptions,
  type SendOptions,
  type StoredRequest,
} from "./dispatcher.js";
export { checkDestination } from "./destination-check.js";
export { Notifier, type NotifierOptions } from "./notifier.js";
export { FairScheduler, type FairSchedulerOptions, type Scheduled } from "./fair-scheduler.js";
export { MAX_HELD_RETRIES, MAX_HELD_RETRY_BYTES, MAX_HELD_RETRY_WAIT_MS } from "./held-retries.js";
export { AlertPoster, alertMessageId, alertOf, type AlertPosterOptions, type TestAsker, type TestedRule, type TestOutcome, type TestRefusal } from "./alert-poster.js";
export { createSmtpMailer, createSmtpTransport, smtpTransportOptions, STARTTLS_REQUIRED, type Mailer } from "./mailer.js";
