/**
 * A one-time notice carried across a redirect ("Event … was deleted."): set as a short-lived
 * cookie by the action, read and cleared by the shell's loader on the next page.
 */
const NAME = "rehook_notice";
/** A notice is a sentence: anything longer is cut, so the cookie stays small. */
const MAX_NOTICE_LENGTH = 300;

export function noticeCookie(text: string): string {
  return `${NAME}=${encodeURIComponent(text.slice(0, MAX_NOTICE_LENGTH))}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax`;
}

export function clearedNoticeCookie(): string {
  return `${NAME}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`;
}

/** The notice the request carries, if any. */
export function readNotice(request: Request): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, ...rest] = part.trim().split("=");
    if (name !== NAME) continue;
    try {
      const text = decodeURIComponent(rest.join("="));
      return text ? text.slice(0, MAX_NOTICE_LENGTH) : null;
    } catch {
      return null;
    }
  }
  return null;
}
