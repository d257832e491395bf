import { lookup as dnsLookup } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { checkDestinationUrl, isLocalhostName, type AddressPolicy, type DestinationCheck } from "@rehook/core";
import { BlockedAddressError, safeLookup } from "./safe-agent.js";

const RESOLVE_TIMEOUT_MS = 3_000;

/**
 * The save-time check of a destination URL: the syntax and IP-literal rules from core, then
 * the host name resolved now and refused when none of its addresses may be connected to,
 * with the same reason the connection would give. A name that does not resolve now (or
 * within 3 s) is accepted (DNS may be down, or the record not published yet): the connect-time check in
 * the safe agent is the guarantee; this one gives the user an early, clear answer.
 */
export async function checkDestination(raw: string, policy: AddressPolicy, lookup: typeof dnsLookup = dnsLookup): Promise<DestinationCheck> {
  const checked = checkDestinationUrl(raw, policy);
  if (!checked.ok) return checked;
  const hostname = new URL(checked.url).hostname.replace(/^\[|\]$/g, "");
  if (isIP(hostname) || isLocalhostName(hostname)) return checked;
  const reason = await new Promise<string | undefined>((resolve) => {
    // A resolver that does not answer must not hold the save: the connect-time check remains.
    const timer = setTimeout(() => resolve(undefined), RESOLVE_TIMEOUT_MS);
    const filter: LookupFunction = safeLookup(policy, lookup);
    filter(hostname, { all: true }, (error) => {
      clearTimeout(timer);
      resolve(error instanceof BlockedAddressError ? `${hostname}: ${error.message}` : undefined);
    });
  });
  return reason ? { ok: false, reason } : checked;
}
