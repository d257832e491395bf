export { createDeliveryPool, type DeliveryPool, type DeliveryPoolOptions } from "./pool.js";
export { BlockedAddressError, checkLiteralHost, createSafeAgent, safeLookup, type SafeAgentOptions } from "./safe-agent.js";
export { sendRequest } from "./send.js";
export type { DeliveryResult, DeliveryTask } from "./types.js";
export { DeliveryDispatcher, deliveryTask, type DispatcherOptions } from "./dispatcher.js";
