import type { Actor } from "./contracts/contract.js";
import type { ServiceContext } from "./context.js";
import { cookieValue, dashboardCookie } from "./cookies.js";
import { currentSession, type CurrentSession } from "./identity.js";
import { actorFor, type TeamView } from "./teams.js";

/** The cookie that remembers, per browser, which team the dashboard shows (an id; membership is checked on every request). */
export const TEAM_COOKIE = "rehook_team";
const TEAM_COOKIE_MAX_AGE_SECONDS = 400 * 86_400;

/** The team id the browser chose last, if its Cookie header names one. */
export function chosenTeamId(cookieHeader: string | undefined | null): string | null {
  const id = cookieValue(cookieHeader, TEAM_COOKIE);
  return id !== null && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
}

/** The Set-Cookie value that remembers a team choice. */
export function teamChoiceCookie(ctx: Pick<ServiceContext, "sessions">, teamId: string): string {
  return dashboardCookie(ctx, { name: TEAM_COOKIE, value: teamId, path: "/", maxAgeSeconds: TEAM_COOKIE_MAX_AGE_SECONDS });
}

export interface DashboardActor {
  session: CurrentSession;
  actor: Actor;
  team: TeamView;
}

/** The signed-in user of a dashboard request and who they are in the team their browser chose (see actorFor). */
export async function dashboardActor(ctx: Pick<ServiceContext, "sessions" | "orm">, cookieHeader: string | undefined | null): Promise<DashboardActor | null> {
  const session = await currentSession(ctx, cookieHeader);
  if (!session) return null;
  const { actor, team } = await actorFor(ctx, { userId: session.user.id, teamId: chosenTeamId(cookieHeader) });
  return { session, actor, team };
}
