import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import { settingsAction } from "../features/settings/settings-actions.server";
import { loadSettingsPage } from "../features/settings/settings-data.server";
import { SettingsPage } from "../features/settings/settings-page";

export const meta: MetaFunction = () => [{ title: "Settings · Rehook" }];

export const loader = (args: LoaderFunctionArgs) => loadSettingsPage(args);

/** Every Settings form posts here; its `intent` picks the handler (features/settings/settings-actions.server.ts). */
export const action = (args: ActionFunctionArgs) => settingsAction(args);

export default function SettingsRoute() {
  return <SettingsPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
