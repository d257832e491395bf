/*
 * Where to send a user after logging in: only a path on this site. Browsers read "//host",
 * "/\host" and "/<TAB>/host" as another site (they drop tabs and newlines and treat "\" as
 * "/"), and a CR or LF in a Location header is refused (a 500) or splits the header. Encoded
 * forms (%2F, %5C, %09, …) are checked too, decoded as often as they decode, in case
 * anything on the way decodes them again.
 */

const HOME = "/";
/** C0 controls, DEL, C1 controls, and the line and paragraph separators. */
const CONTROL = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
/** One "/" and then anything but "/" or "\" (or nothing: "/" itself). */
const SINGLE_SLASH_START = /^\/(?![/\\])/;
const MAX_DECODING_ROUNDS = 4;
const PLACEHOLDER_ORIGIN = "http://rehook.invalid";

function isSameSitePath(text: string): boolean {
  return SINGLE_SLASH_START.test(text) && !CONTROL.test(text);
}

function decodeOnce(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined; // malformed escapes: not something the dashboard ever links to
  }
}

/**
 * `next` when it is a path on this site (one "/" then neither "/" nor "\", no control
 * characters, in every decoded form), normalised as a URL path; "/" otherwise.
 */
export function safeRedirectPath(next: unknown): string {
  if (typeof next !== "string" || !isSameSitePath(next)) return HOME;
  let decoded = next;
  for (let round = 0; ; round += 1) {
    const again = decodeOnce(decoded);
    if (again === undefined || !isSameSitePath(again)) return HOME;
    if (again === decoded) break;
    if (round === MAX_DECODING_ROUNDS) return HOME;
    decoded = again;
  }
  // Percent-encodes what a Location header may not carry (non-ASCII, spaces). Resolving dot
  // segments can make "/..//host" into "//host": the result is checked again.
  const url = new URL(next, PLACEHOLDER_ORIGIN);
  const path = `${url.pathname}${url.search}${url.hash}`;
  return url.origin === PLACEHOLDER_ORIGIN && isSameSitePath(path) ? path : HOME;
}
