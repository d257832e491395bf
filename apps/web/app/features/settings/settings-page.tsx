import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { Invites } from "../../components/invites";
import { RoleNote } from "../../components/role-gate";
import { PageHeader } from "../../components/ui";
import { can, rolesUpTo, whyNot } from "../../lib/roles";
import { AlertsSection } from "./alerts-section";
import { ApiKeysSection } from "./api-keys-section";
import { MembersSection } from "./members-section";
import { NotificationsSection } from "./notifications-section";
import { Section } from "./section";
import { SecuritySection } from "./security-section";
import type { settingsAction } from "./settings-actions.server";
import type { loadSettingsPage } from "./settings-data.server";
import { TeamSection } from "./team-section";
import "./settings.css";

const SECTIONS: Array<[id: string, label: string]> = [
  ["team", "Team"],
  ["members", "Members"],
  ["invites", "Invites"],
  ["api-keys", "API keys"],
  ["security", "Security"],
  ["notifications", "Notifications"],
  ["alerts", "Alert rules"],
];

/** The team, its members and invites, API keys, signing secrets and notifications; each part as far as the member's role allows. */
export function SettingsPage() {
  const { userId, team, members, apiKeys, endpoints, notifications, invites, alerts } = useLoaderData<typeof loadSettingsPage>();
  const result = useActionData<typeof settingsAction>();
  const ownKeys = members.find((member) => member.userId === userId)?.activeKeys ?? 0;
  return (
    <>
      <PageHeader
        title="Settings"
        description={
          <>
            The team <strong className="break">{team.name}</strong>: its members, API access, signing secrets and notifications.
          </>
        }
      />
      <nav className="section-nav" aria-label="Settings sections">
        {SECTIONS.map(([id, label]) => (
          <a key={id} href={`#${id}`}>
            {label}
          </a>
        ))}
        {can(team.role, "admin") ? <Link to="/settings/audit-log">Audit log</Link> : null}
      </nav>
      <TeamSection team={team} ownKeys={ownKeys} result={result} />
      <MembersSection members={members} viewerId={userId} viewerRole={team.role} result={result} />
      <Section id="invites" icon="plus" title="Invites" description="One-time links that add someone to this team with a role. Each works once and for 7 days; someone without an account signs up with it.">
        {invites ? (
          <Invites invites={invites} roles={rolesUpTo(team.role)} result={result} />
        ) : (
          <RoleNote>{whyNot(team.role, "admin", "Inviting people")}</RoleNote>
        )}
      </Section>
      <ApiKeysSection apiKeys={apiKeys} role={team.role} result={result} />
      <SecuritySection endpoints={endpoints} result={result} />
      {notifications ? (
        <NotificationsSection settings={notifications} result={result} />
      ) : (
        <Section id="notifications" icon="bell" title="Notifications" description="Chat messages (Slack incoming webhook) when this team's deliveries fail, succeed or events are captured.">
          <RoleNote>{whyNot(team.role, "admin", "Managing chat notifications")}</RoleNote>
        </Section>
      )}
      {alerts ? (
        <AlertsSection rules={alerts} endpoints={endpoints} result={result} />
      ) : (
        <Section id="alerts" icon="bell" title="Alert rules" description="Alerts on Slack, Discord, Microsoft Teams, email or a signed webhook.">
          <RoleNote>{whyNot(team.role, "admin", "Managing alert rules")}</RoleNote>
        </Section>
      )}
    </>
  );
}
