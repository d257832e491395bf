import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { checkAddress, type AddressPolicy } from "@rehook/core";
import { Agent } from "undici";

/** The error a refused address raises inside the connector; its message is the reason. */
export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
  readonly code = "ERR_REHOOK_BLOCKED_ADDRESS";
}

/**
 * A lookup for net.connect that resolves the name, drops every address the policy refuses,
 * and connects only to what is left; when nothing is left it fails with the first reason.
 * The check happens at connect time on the very addresses used, so a DNS answer that
 * changes between a check and the connection (rebinding) changes nothing.
 */
export function safeLookup(policy: AddressPolicy, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { all: true, family: options.family ?? 0, hints: options.hints ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, "", 0); // fail closed
      const allowed: LookupAddress[] = [];
      let reason: string | undefined;
      for (const entry of addresses) {
        const verdict = checkAddress(entry.address, policy);
        if (verdict.allowed) allowed.push(entry);
        else reason ??= verdict.reason;
      }
      if (allowed.length === 0) {
        return callback(new BlockedAddressError(reason ?? `blocked: ${hostname} has no address`), "", 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      return callback(null, allowed[0]!.address, allowed[0]!.family);
    });
  };
}

/** IP-literal hosts never reach a lookup: check them before any connection is made. */
export function checkLiteralHost(url: URL, policy: AddressPolicy): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (!isIP(host)) return undefined;
  const verdict = checkAddress(host, policy);
  return verdict.allowed ? undefined : verdict.reason;
}

export interface SafeAgentOptions {
  policy: AddressPolicy;
  connectTimeoutMs: number;
  /** Concurrent connections per origin. */
  connections?: number;
}

/** The one dispatcher every outbound request goes through: keep-alive pooling, address policy on connect. */
export function createSafeAgent(options: SafeAgentOptions): Agent {
  return new Agent({
    connect: { lookup: safeLookup(options.policy), timeout: options.connectTimeoutMs },
    connections: options.connections ?? 64,
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
  });
}
