export * from "./alert.js";
export * from "./channels.js";
export * from "./rules.js";
export * from "./messages.js";
export * from "./judge.js";
export * from "./pacing.js";
