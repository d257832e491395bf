import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import type { ActionReply } from "../features/settings/action-reply";
import { settingsAction } from "../features/settings/settings-actions.server";
import { SettingsPage } from "../features/settings/settings-page";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Settings · Rehook" }];

export async function loader({ request, context }: LoaderFunctionArgs) {
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
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhook_url: endpoint.webhook_url })),
    notifications,
  };
}

/** Every Settings form posts here; its `intent` picks the handler (features/settings/settings-actions.server.ts). */
export async function action(args: ActionFunctionArgs): Promise<ActionReply> {
  return settingsAction(args);
}

export default function SettingsRoute() {
  return <SettingsPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
