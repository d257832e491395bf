export { createConsoleLogger } from "./logger.js";
export { createHttpServer, startServer, type RehookServer } from "./server.js";
