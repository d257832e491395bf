import { Lucia, TimeSpan } from "lucia";
import { SECURE_SESSION_COOKIE_NAME, SESSION_COOKIE_NAME } from "@rehook/core";
import type { EntityManager } from "@rehook/db";
import { MikroOrmSessionAdapter } from "./lucia-adapter.js";

/** The signed-in user as the rest of Rehook sees it. */
export interface SessionUser {
  id: string;
  email: string;
}

export interface SessionCookie {
  name: string;
  /** A complete Set-Cookie header value. */
  serialized: string;
}

/**
 * Sessions behind one small interface, so lucia (deprecated upstream) can be replaced
 * without touching callers. Cookies are HttpOnly, SameSite=Lax, Path=/, Secure on https.
 */
export interface SessionManager {
  readonly cookieName: string;
  /** A new session (login and sign-up rotate: callers end the previous one). */
  create(userId: string): Promise<SessionCookie>;
  /** The session's user, and a refreshed cookie when lucia extended the session. */
  validate(sessionId: string): Promise<{ user: SessionUser; refreshed: SessionCookie | null } | null>;
  end(sessionId: string): Promise<void>;
  /** The cookie that clears the session cookie. */
  blankCookie(): SessionCookie;
  /** The session id in a Cookie header, if any. */
  readSessionId(cookieHeader: string | undefined | null): string | null;
}

declare module "lucia" {
  interface Register {
    Lucia: Lucia<Record<never, never>, { email: string }>;
    DatabaseUserAttributes: { email: string };
  }
}

export function createSessionManager(options: { entityManager: () => EntityManager; secureCookies: boolean; lifetimeDays?: number }): SessionManager {
  const lucia = new Lucia(new MikroOrmSessionAdapter(options.entityManager), {
    sessionExpiresIn: new TimeSpan(options.lifetimeDays ?? 30, "d"),
    // __Host- makes the browser refuse the cookie unless it is Secure, Path=/ and host-only: no subdomain or plain-http page can plant or shadow it.
    sessionCookie: { name: options.secureCookies ? SECURE_SESSION_COOKIE_NAME : SESSION_COOKIE_NAME, expires: true, attributes: { secure: options.secureCookies, sameSite: "lax", path: "/" } },
    getUserAttributes: (attributes) => ({ email: attributes.email }),
  });
  const asCookie = (cookie: { name: string; serialize(): string }): SessionCookie => ({ name: cookie.name, serialized: cookie.serialize() });
  return {
    cookieName: lucia.sessionCookieName,
    async create(userId) {
      const session = await lucia.createSession(userId, {});
      return asCookie(lucia.createSessionCookie(session.id));
    },
    async validate(sessionId) {
      const { session, user } = await lucia.validateSession(sessionId);
      if (!session || !user) return null;
      return { user: { id: user.id, email: user.email }, refreshed: session.fresh ? asCookie(lucia.createSessionCookie(session.id)) : null };
    },
    end: (sessionId) => lucia.invalidateSession(sessionId),
    blankCookie: () => asCookie(lucia.createBlankSessionCookie()),
    readSessionId: (header) => lucia.readSessionCookie(header ?? ""),
  };
}
