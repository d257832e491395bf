export * from "./filter.js";
export * from "./dedup.js";
