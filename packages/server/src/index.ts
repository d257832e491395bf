export { createConsoleLogger, createJsonLogger, createLogger, type LogFormat, type LoggerOptions } from "./logger.js";
export { createHttpServer, startServer, type RehookServer, type StartOptions } from "./server.js";
export { createTrpcHandler } from "./trpc-handler.js";
export { withRequestId } from "./request-context.js";
export { openInfrastructure, type Infrastructure, type InfrastructureOptions } from "./infrastructure.js";
export { openReplayOutbound, outboundOptions, type ReplayOutbound } from "./replay-outbound.js";
