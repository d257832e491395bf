import type { Actor } from "./contracts/contract.js";
import type { ServiceContext } from "./context.js";
import { currentSession, type CurrentSession } from "./identity.js";
import { actorFor, type TeamView } from "./teams.js";

/** The cookie that remembers, per browser, which team the dashboard shows (an id; membership is checked on every request). */
export const TEAM_COOKIE = "rehook_team";
const TEAM_COOKIE_MAX_AGE_SECONDS = 400 * 86_400;

/** The team id the browser chose last, if its Cookie header names one. */
export function chosenTeamId(cookieHeader: string | undefined | null): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TEAM_COOKIE) {
      const id = value.join("=").trim();
      return /^[0-9a-f-]{36}$/i.test(id) ? id : null;
    }
  }
  return null;
}

/** The Set-Cookie value that remembers a team choice (Secure when the session cookie is). */
export function teamChoiceCookie(ctx: Pick<ServiceContext, "sessions">, teamId: string): string {
  const secure = ctx.sessions.cookieName.startsWith("__Host-") ? "; Secure" : "";
  return `${TEAM_COOKIE}=${teamId}; Path=/; Max-Age=${TEAM_COOKIE_MAX_AGE_SECONDS}; HttpOnly; SameSite=Lax${secure}`;
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
