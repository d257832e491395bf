export * from "./event-summary.js";
export * from "./breaker.js";
export * from "./completion-alerts.js";
