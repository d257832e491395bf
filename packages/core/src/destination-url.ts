import { isIP } from "node:net";
import { checkAddress, isLocalhostName, type AddressPolicy } from "./addresses.js";
import { checkDestinationSyntax, type DestinationCheck } from "./destination-syntax.js";

export { checkDestinationSyntax, type DestinationCheck };

/**
 * The save-time rule for a destination: the syntax (destination-syntax.ts), then an IP-literal host checked
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
