export * from "./event.js";
export * from "./ndjson.js";
export * from "./har.js";
