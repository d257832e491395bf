// What an export holds (the event db reads and services stream) and the formats' names; the
// wire formats that write it (NDJSON, HAR) are in @rehook/http.
export * from "./event.js";
