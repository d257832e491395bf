import type { LoaderFunctionArgs } from "@remix-run/node";
import { can } from "../../lib/roles";
import { requireUser } from "../../lib/session.server";

/**
 * The Settings page's loader (routes/_app.settings.tsx): the team and its members, and what
 * the member's role may read of the rest: API keys (developer), notifications, invites and
 * alert rules (admin); null for what it may not.
 */
export async function loadSettingsPage({ request, context }: LoaderFunctionArgs) {
  const user = requireUser(context, request);
  const team = await context.caller.teams.current();
  const [members, apiKeys, endpoints, notifications, invites, alerts] = await Promise.all([
    context.caller.members.list(),
    can(team.role, "developer") ? context.caller.apiKeys.list() : null,
    context.caller.endpoints.list(),
    can(team.role, "admin") ? context.caller.notifications.get() : null,
    can(team.role, "admin") ? context.caller.invites.list() : null,
    can(team.role, "admin") ? context.caller.alerts.list() : null,
  ]);
  return {
    userId: user.id,
    team,
    members,
    apiKeys,
    invites,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhookUrl: endpoint.webhookUrl })),
    notifications,
    alerts,
  };
}
