import type { LoaderFunctionArgs } from "@remix-run/node";
import { requireUser } from "../../lib/session.server";

/** The Settings page's loader (routes/_app.settings.tsx): API keys, endpoints, notifications and invites. */
export async function loadSettingsPage({ request, context }: LoaderFunctionArgs) {
  requireUser(context, request);
  const [apiKeys, endpoints, notifications, invites] = await Promise.all([
    context.caller.apiKeys.list(),
    context.caller.endpoints.list(),
    context.caller.notifications.get(),
    context.caller.invites.list(),
  ]);
  return {
    apiKeys,
    invites,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhookUrl: endpoint.webhookUrl })),
    notifications,
  };
}
