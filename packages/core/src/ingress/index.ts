export * from "./response.js";
export * from "./handshake.js";
export * from "./secret-hint.js";
export * from "./verification/index.js";
export * from "./wire.js";
