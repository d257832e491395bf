export * from "./filter.js";
export * from "./dedup.js";
export * from "./destinations.js";
