export { harEntry, harStart, HAR_END } from "./har.js";
export { ndjsonLine } from "./ndjson.js";
