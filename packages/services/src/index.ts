export type { ServiceContext } from "./context.js";
export { captureRequest, type CaptureInput, type CaptureOutcome } from "./capture.js";
export {
  createEndpoint,
  deleteEndpoint,
  endpointSecret,
  endpointView,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
  type EndpointRef,
  type EndpointView,
} from "./endpoints.js";
export { createUser, requireUserByEmail, type UserView } from "./users.js";
export { currentSession, logIn, logOut, signUp, type CurrentSession, type SignedIn } from "./identity.js";
export { getEvent, listEvents, listEventsByOffset, liveEvents, type EventPage, type EventSummary, type EventView, type LiveFilter } from "./events.js";
export { authenticateApiKey, createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from "./api-keys.js";
export { getNotificationSettings, saveNotificationSettings, sendTestNotification, type NotificationSettingsView } from "./notification-settings.js";
export { parseInput } from "./validation.js";
export {
  getReplay,
  listReplays,
  localReplayRequest,
  recordLocalReplay,
  replayAttemptView,
  replayEvent,
  type ReplayAttemptView,
  type ReplaySummary,
} from "./replays.js";
export { BulkReplays, type ReplayJobView } from "./bulk-replays.js";
export { endpointEventStream, type FullEvent } from "./event-stream.js";
