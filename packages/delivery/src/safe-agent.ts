import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP, type LookupFunction } from "node:net";
import { checkAddress, ConcurrencyLimit, type AddressPolicy } from "@rehook/core";
import { Agent, type Dispatcher } from "undici";

/**
 * Most DNS lookups one thread (each delivery worker, and the main thread's save-time
 * checks) runs at once. getaddrinfo blocks a libuv threadpool thread, which password
 * hashing and file I/O also need: a burst of new destinations queues here instead.
 */
export const MAX_CONCURRENT_LOOKUPS = 4;

const lookups = new ConcurrencyLimit(MAX_CONCURRENT_LOOKUPS);

/** The error a refused address raises inside the connector; its message is the reason. */
export class BlockedAddressError extends Error {
  override name = "BlockedAddressError";
  readonly code = "ERR_REHOOK_BLOCKED_ADDRESS";
}

/**
 * A lookup for net.connect that resolves the name, drops every address the policy refuses,
 * and connects only to what is left; when nothing is left it fails with the first reason.
 * The check happens at connect time on the very addresses used, so a DNS answer that
 * changes between a check and the connection (rebinding) changes nothing. At most
 * MAX_CONCURRENT_LOOKUPS run at once in a thread; the others wait their turn.
 */
export function safeLookup(policy: AddressPolicy, resolve: typeof dnsLookup = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    const answer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
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
    };
    void lookups.run(
      () =>
        new Promise<void>((done) => {
          try {
            resolve(hostname, { all: true, family: options.family ?? 0, hints: options.hints ?? 0 }, (error, addresses: LookupAddress[]) => {
              done();
              answer(error, addresses);
            });
          } catch (error) {
            done(); // a lookup that throws (an invalid name) must not keep its slot
            answer(error as NodeJS.ErrnoException, []);
          }
        }),
    );
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

/**
 * The dispatchers every outbound request goes through; both connect only to addresses the
 * policy allows (same lookup, same connect timeout).
 */
export interface SafeAgent {
  /** Keep-alive pooling: every request starts here. */
  pooled: Dispatcher;
  /**
   * A connection of its own for each request, closed after the answer: for the one retry
   * after a pooled connection turned out stale, which must not land on another stale one.
   */
  fresh: Dispatcher;
  close(): Promise<void>;
}

/** Sends Connection: close and never hands the socket to another request. */
const oneRequestPerConnection: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (options, handler) => dispatch({ ...options, reset: true }, handler);

export function createSafeAgent(options: SafeAgentOptions): SafeAgent {
  const connect = { lookup: safeLookup(options.policy), timeout: options.connectTimeoutMs };
  const connections = options.connections ?? 64;
  const pooled = new Agent({
    connect,
    connections,
    // Shorter than most servers' idle timeout (Node's 5 s, nginx's 75 s), so we close first.
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 60_000,
  });
  const fresh = new Agent({ connect, connections }).compose(oneRequestPerConnection);
  return {
    pooled,
    fresh,
    close: async () => {
      await Promise.all([pooled.close(), fresh.close()]);
    },
  };
}
