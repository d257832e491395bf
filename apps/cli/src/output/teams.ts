import type { MemberView, TeamView } from "@rehook/services";
import { instant, type Column } from "./table.js";

// Teams and members as the team commands print them: snake_case and ISO times for --json, as
// the other commands print the API's spelling, and the columns of their tables.

export function wireTeam(team: Pick<TeamView, "id" | "name" | "slug">) {
  return { id: team.id, name: team.name, slug: team.slug };
}

export function wireMembership(team: TeamView) {
  return { ...wireTeam(team), role: team.role, personal: team.personal };
}

export function wireMember(member: MemberView) {
  return {
    user_id: member.userId,
    email: member.email,
    role: member.role,
    joined_at: member.joinedAt.toISOString(),
    last_active_at: member.lastActiveAt?.toISOString() ?? null,
    active_keys: member.activeKeys,
  };
}

export const TEAM_COLUMNS: Column<TeamView>[] = [
  { header: "SLUG", width: 40, value: (t) => t.slug },
  { header: "NAME", width: 30, value: (t) => t.name },
  { header: "ROLE", width: 9, value: (t) => t.role },
  { header: "PERSONAL", width: 8, value: (t) => (t.personal ? "yes" : "no") },
  { header: "ID", width: 36, value: (t) => t.id },
];

export const MEMBER_COLUMNS: Column<MemberView>[] = [
  { header: "EMAIL", width: 32, value: (m) => m.email },
  { header: "ROLE", width: 9, value: (m) => m.role },
  { header: "JOINED", width: 20, value: (m) => instant(m.joinedAt) },
  { header: "LAST ACTIVE", width: 20, value: (m) => instant(m.lastActiveAt) },
  // The keys a removal would revoke.
  { header: "KEYS", width: 4, align: "right", value: (m) => String(m.activeKeys) },
];
