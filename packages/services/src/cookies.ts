import type { ServiceContext } from "./context.js";

/** The value of the cookie `name` in a Cookie header (the first one), or null. */
export function cookieValue(cookieHeader: string | undefined | null, name: string): string | null {
  for (const part of (cookieHeader ?? "").split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return value.join("=").trim();
  }
  return null;
}

/**
 * A Set-Cookie value of the dashboard's own (HttpOnly, SameSite=Lax), Secure when the session
 * cookie is: its __Host- name means the dashboard is served over https.
 */
export function dashboardCookie(ctx: Pick<ServiceContext, "sessions">, cookie: { name: string; value: string; path: string; maxAgeSeconds: number }): string {
  const secure = ctx.sessions.cookieName.startsWith("__Host-") ? "; Secure" : "";
  return `${cookie.name}=${cookie.value}; Path=${cookie.path}; Max-Age=${cookie.maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}
