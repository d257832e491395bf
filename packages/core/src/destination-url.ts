import { checkAddress, isLocalhostName, type AddressPolicy } from "./addresses.js";
import { isIP } from "node:net";

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

/**
 * The save-time rule for a destination: the syntax above, then an IP-literal host checked
 * against the address policy and localhost names refused. Names are resolved and every
 * address checked again when connecting (see the delivery dispatcher), where DNS answers
 * cannot change between check and use.
 */
export function checkDestinationUrl(raw: string, policy: AddressPolicy): DestinationCheck {
  const syntax = checkDestinationSyntax(raw);
  if (!syntax.ok) return syntax;
  const hostname = new URL(syntax.url).hostname.replace(/^\[|\]$/g, "");
  if (isIP(hostname)) {
    const verdict = checkAddress(hostname, policy);
    return verdict.allowed ? syntax : { ok: false, reason: verdict.reason };
  }
  if (isLocalhostName(hostname) && !policy.allowPrivate) {
    return { ok: false, reason: `blocked: loopback address (${hostname})` };
  }
  return syntax;
}
