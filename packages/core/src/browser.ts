// The part of core a browser bundle may import (no Node modules anywhere below): the
// dashboard formats times, statuses and payloads with the same code the server uses.
export { EVENT_STATUSES, type EventStatus } from "./events.js";
export type { HealthState } from "./health.js";
export { relativeTime } from "./relative-time.js";
export { describePayload, jsonTokens, type JsonToken, type JsonTokenKind, type PayloadView } from "./payload-view.js";
export { shellQuote } from "./curl.js";
// Replays: where a replay goes and what a browser-side (local) replay sends. Only the type
// comes from replay-target.ts: its code imports destination-url.ts, which needs node:net.
export { forwardableHeaders, forwardTarget } from "./forwarding.js";
export type { ReplayEnvironment } from "./replay-target.js";
