import { useRouteLoaderData } from "@remix-run/react";
import type { loader as shellLoader } from "../routes/_app";
import { whyNot, type Role } from "../lib/roles";

/** The team the dashboard is in, the user's teams and their role here (the shell's loader, routes/_app.tsx). */
export function useTeam() {
  const data = useRouteLoaderData<typeof shellLoader>("routes/_app");
  if (!data) throw new Error("useTeam is for pages inside the signed-in shell");
  return { team: data.team, teams: data.teams, role: data.team.role };
}

/**
 * Whether the current role may do what needs `needed`, and if not why (for a disabled
 * control's title: "Needs the developer role; you are a viewer.").
 */
export function useAccess(needed: Role): { allowed: boolean; reason: string | undefined } {
  const { role } = useTeam();
  const reason = whyNot(role, needed);
  return { allowed: reason === undefined, reason };
}
