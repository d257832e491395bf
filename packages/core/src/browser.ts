// The part of core a browser bundle may import (no Node modules anywhere below): the
// dashboard formats times, statuses and payloads with the same code the server uses.
export { EVENT_STATUSES, type EventStatus } from "./events.js";
export type { HealthState } from "./health.js";
export { relativeTime } from "./relative-time.js";
export { jsonTokens, type JsonToken, type JsonTokenKind, type PayloadView } from "./payload-view.js";
export { shellQuote } from "./curl.js";
