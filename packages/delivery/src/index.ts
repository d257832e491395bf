export { createDeliveryPool, type DeliveryPool, type DeliveryPoolOptions } from "./pool.js";
export { BlockedAddressError, checkLiteralHost, createSafeAgent, safeLookup, type SafeAgentOptions } from "./safe-agent.js";
export { sendRequest } from "./send.js";
export type { DeliveryBatch, DeliveryResult, DeliveryTask, ResultMessage } from "./types.js";
export { DeliveryDispatcher, deliveryTask, MAX_RECOVERY_BYTES_IN_FLIGHT, outboundTask, type DispatcherOptions, type SendOptions, type StoredRequest } from "./dispatcher.js";
export { checkDestination } from "./destination-check.js";
export { Notifier, type NotifierOptions } from "./notifier.js";
