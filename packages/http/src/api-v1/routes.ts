import { ALERT_ROUTES } from "./routes/alerts.js";
import { AUDIT_ROUTES } from "./routes/audit.js";
import { DESTINATION_ROUTES } from "./routes/destinations.js";
import { ENDPOINT_ROUTES } from "./routes/endpoints.js";
import { EVENT_ROUTES } from "./routes/events.js";
import { TEAM_ROUTES } from "./routes/team.js";

export { parseWith, type Route } from "./route.js";
export { exportFilter } from "./routes/events.js";

/** Every /api/v1 route, in the order the OpenAPI document lists them. */
export const ROUTES = [...EVENT_ROUTES, ...ENDPOINT_ROUTES, ...DESTINATION_ROUTES, ...TEAM_ROUTES, ...AUDIT_ROUTES, ...ALERT_ROUTES];
