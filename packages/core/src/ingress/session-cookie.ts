import type { HeaderList } from "../headers.js";

/** The dashboard's session cookie: `__Host-` on https (packages/auth's session manager sets it). */
export const SESSION_COOKIE_NAME = "rehook_session";
export const SECURE_SESSION_COOKIE_NAME = "__Host-rehook_session";
const SESSION_COOKIE_NAMES = new Set([SESSION_COOKIE_NAME, SECURE_SESSION_COOKIE_NAME]);

function isSessionPair(pair: string): boolean {
  const equals = pair.indexOf("=");
  return SESSION_COOKIE_NAMES.has((equals === -1 ? pair : pair.slice(0, equals)).trim());
}

const isCookieHeader = (name: string) => name.length === 6 && name.toLowerCase() === "cookie";
const carriesSession = ([name, value]: [string, string]) => isCookieHeader(name) && value.split(";").some(isSessionPair);

/**
 * A captured request's headers without the dashboard's session cookie. A capture URL on the
 * dashboard's host receives it from any logged-in user a link sends there (SameSite=Lax allows
 * top-level navigations); kept, it would show in the endpoint owner's events, exports and
 * forwards: their way into the visitor's account. Other cookies are kept as sent; a Cookie
 * header left empty is dropped. Most requests carry none: the list is then returned as is.
 */
export function withoutSessionCookie(headers: HeaderList): HeaderList {
  if (!headers.some(carriesSession)) return headers;
  const cleaned: HeaderList = [];
  for (const header of headers) {
    if (!carriesSession(header)) {
      cleaned.push(header);
      continue;
    }
    const kept = header[1].split(";").filter((pair) => !isSessionPair(pair)).map((pair) => pair.trim()).filter(Boolean);
    if (kept.length > 0) cleaned.push([header[0], kept.join("; ")]);
  }
  return cleaned;
}
