export * from "./event-status.js";
export * from "./breaker.js";
export * from "./completion-alerts.js";
