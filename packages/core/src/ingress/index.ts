export * from "./response.js";
export * from "./answer-policy.js";
export * from "./handshake.js";
export * from "./secret-hint.js";
export * from "./sender-answer.js";
export * from "./verification/index.js";
export * from "./session-cookie.js";
