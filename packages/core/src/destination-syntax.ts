// No Node imports: the dashboard's browser bundle uses these rules too (see browser.ts).

export type DestinationCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * The syntactic rules for a destination URL: absolute http(s), no credentials.
 * (Whether its address is publicly reachable is checked separately, at save and at connect time.)
 */
export function checkDestinationSyntax(raw: string): DestinationCheck {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: "not a valid absolute URL" };
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, reason: `scheme ${url.protocol.replace(/:$/, "")} is not allowed: use http or https` };
  }
  if (url.username || url.password) return { ok: false, reason: "URLs with user:password@ credentials are not allowed" };
  if (!url.hostname) return { ok: false, reason: "the URL has no host" };
  return { ok: true, url: url.href };
}
