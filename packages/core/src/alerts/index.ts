export * from "./alert.js";
export * from "./channels.js";
