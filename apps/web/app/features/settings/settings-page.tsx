import { useActionData, useLoaderData } from "@remix-run/react";
import { Invites } from "../../components/invites";
import { PageHeader } from "../../components/ui";
import { ApiKeysSection } from "./api-keys-section";
import { NotificationsSection } from "./notifications-section";
import { Section } from "./section";
import { SecuritySection } from "./security-section";
import type { settingsAction } from "./settings-actions.server";
import type { loadSettingsPage } from "./settings-data.server";
import "./settings.css";

/** API keys, signing secrets, notifications and (for an admin) invites. */
export function SettingsPage() {
  const { apiKeys, endpoints, notifications, invites } = useLoaderData<typeof loadSettingsPage>();
  const result = useActionData<typeof settingsAction>();
  return (
    <>
      <PageHeader title="Settings" description="API access, signing secrets and notifications for your account." />
      <nav className="section-nav" aria-label="Settings sections">
        <a href="#api-keys">API keys</a>
        <a href="#security">Security</a>
        <a href="#notifications">Notifications</a>
        {invites.isAdmin ? <a href="#invites">Invites</a> : null}
      </nav>
      <ApiKeysSection apiKeys={apiKeys} result={result} />
      <SecuritySection endpoints={endpoints} result={result} />
      <NotificationsSection settings={notifications} result={result} />
      {invites.isAdmin ? (
        <Section id="invites" icon="plus" title="Invites" description="One-time links that let someone create an account when SIGNUP=invite. Each works once and for 7 days.">
          <Invites invites={invites.invites} result={result} />
        </Section>
      ) : null}
    </>
  );
}
