import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { authRouter } from "./router/auth.js";
import { deliveriesRouter } from "./router/deliveries.js";
import { destinationsRouter } from "./router/destinations.js";
import { endpointsRouter } from "./router/endpoints.js";
import { eventsRouter } from "./router/events.js";
import { replaysRouter } from "./router/replays.js";
import { alertsRouter, apiKeysRouter, auditRouter, invitesRouter, notificationsRouter } from "./router/settings.js";
import { membersRouter, teamsRouter } from "./router/teams.js";
import { createCallerFactory, router } from "./trpc.js";

/** Every dashboard operation, grouped by area. */
export const appRouter = router({
  auth: authRouter,
  endpoints: endpointsRouter,
  destinations: destinationsRouter,
  events: eventsRouter,
  deliveries: deliveriesRouter,
  replays: replaysRouter,
  apiKeys: apiKeysRouter,
  notifications: notificationsRouter,
  invites: invitesRouter,
  teams: teamsRouter,
  members: membersRouter,
  audit: auditRouter,
  alerts: alertsRouter,
});

export type AppRouter = typeof appRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

/** The server-side caller Remix loaders and actions use (same procedures, no HTTP). */
export const createCaller = createCallerFactory(appRouter);
