export type { ServiceContext } from "./context.js";
export { captureRequest, type CaptureInput, type CaptureOutcome } from "./capture.js";
export { createEndpoint, deleteEndpoint, endpointSecret, endpointView, type EndpointView } from "./endpoints.js";
export { createUser, requireUserByEmail, type UserView } from "./users.js";
export { parseInput } from "./validation.js";
