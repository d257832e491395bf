import { isIPv4 } from "node:net";
import { ipv6Bytes } from "./addresses.js";
import { parseClientAddress } from "./client-address.js";

/*
 * What request bodies being read may hold in memory at once in one process
 * (MAX_BUFFERED_BODY_BYTES), kept in two slices: captures, and the dashboard's and API's own
 * routes (sign-in, forms, tRPC, /api/v1, the replay route), so a flood on capture URLs cannot
 * stop an operator signing in or an API client writing, nor the reverse. Within a slice one
 * client address (or API key's team), one IPv6 /48, and for captures one endpoint, may hold
 * only part of it, and anonymous requests only part of the dashboard's. Bytes are taken
 * as they arrive, never as a Content-Length promises: holding the budget costs a client the
 * bytes it sent, plus a small charge for each upload it keeps open.
 */

/** Which part of the body budget a route's bodies draw on. */
export type BodySlice = "capture" | "dashboard";

export interface SliceLimits {
  /** Bytes this slice's bodies may hold at once. */
  bytes: number;
  /** What bodies from one client address (an IPv6 /64), or of one API key, may hold at once. */
  perAddress: number;
  /** What bodies from one IPv6 /48 may hold at once: a host can pick any of its /48's 65,536 /64s. */
  perNetwork: number;
  /** What bodies to one target (a capture URL's endpoint) may hold at once (unset: no cap of its own). */
  perTarget?: number;
  /** What bodies of anonymous requests may hold at once: the rest is kept for signed-in and API-key requests (unset: the whole slice). */
  anonymous?: number;
}

export type BodyBudgetLimits = Record<BodySlice, SliceLimits>;

/** Who sends a body, as far as the budget is concerned. */
export interface BodyClient {
  /** The client's address (see parseClientAddress); null or unparseable ones share one key. */
  address: string | null;
  /** The API key (or other principal) the request was authenticated as: its bodies count under it instead of the address. */
  principal?: string;
  /** A signed-in session or a valid API key: may use the part of the slice kept from anonymous requests. */
  authenticated?: boolean;
}

/**
 * What an upload costs while it is open, whatever it has sent: a socket's read buffer (node's
 * stream high-water mark) holds this much before the body is read. Charging it bounds the
 * uploads one address can keep open by its cap. A body that declares less is charged what it
 * declared: that is all its socket can hold of it.
 */
export const OPEN_UPLOAD_BYTES = 16 * 1024;

/** The opening charge of an upload that declared `declared` bytes (undefined: chunked) to a route taking at most `maxBytes`. */
export function openingCharge(declared: number | undefined, maxBytes: number): number {
  return Math.max(0, Math.min(OPEN_UPLOAD_BYTES, declared ?? OPEN_UPLOAD_BYTES, maxBytes));
}

/**
 * Which limit had no room: the client's address (or API key), its IPv6 /48, the target
 * endpoint, or the slice as a whole (or its anonymous part).
 */
export type BodyRefusal = "address" | "network" | "target" | "slice";

/** Counts per key, forgetting a key once it holds nothing (memory follows what is held). */
class Tally {
  private readonly counts = new Map<string, number>();

  get(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string, bytes: number): void {
    const next = this.get(key) + bytes;
    if (next === 0) this.counts.delete(key);
    else this.counts.set(key, next);
  }

  get size(): number {
    return this.counts.size;
  }
}

/** The keys one hold counts under. */
interface HoldKeys {
  client: string;
  network: string | undefined;
  target: string | undefined;
  authenticated: boolean;
}

class SliceLedger {
  used = 0;
  anonymousUsed = 0;
  readonly byClient = new Tally();
  readonly byNetwork = new Tally();
  readonly byTarget = new Tally();

  constructor(readonly limits: SliceLimits) {}

  take(keys: HoldKeys, bytes: number): BodyRefusal | null {
    const { limits } = this;
    if (this.byClient.get(keys.client) + bytes > limits.perAddress) return "address";
    if (keys.network !== undefined && this.byNetwork.get(keys.network) + bytes > limits.perNetwork) return "network";
    if (keys.target !== undefined && limits.perTarget !== undefined && this.byTarget.get(keys.target) + bytes > limits.perTarget) return "target";
    if (!keys.authenticated && limits.anonymous !== undefined && this.anonymousUsed + bytes > limits.anonymous) return "slice";
    if (this.used + bytes > limits.bytes) return "slice";
    this.move(keys, bytes);
    return null;
  }

  give(keys: HoldKeys, bytes: number): void {
    this.move(keys, -bytes);
  }

  private move(keys: HoldKeys, bytes: number): void {
    this.used += bytes;
    if (!keys.authenticated) this.anonymousUsed += bytes;
    this.byClient.add(keys.client, bytes);
    if (keys.network !== undefined) this.byNetwork.add(keys.network, bytes);
    if (keys.target !== undefined) this.byTarget.add(keys.target, bytes);
  }
}

/** One request body's part of the budget. Release it once the body is no longer needed (further releases are no-ops). */
export class BodyHold {
  private held = 0;
  private released = false;

  constructor(
    private readonly ledger: SliceLedger,
    private readonly keys: HoldKeys,
  ) {}

  get bytes(): number {
    return this.held;
  }

  /** Holds at least `bytes` in all, taking the difference; on a refusal nothing more is taken. */
  reserve(bytes: number): BodyRefusal | null {
    if (this.released) return "slice";
    if (bytes <= this.held) return null;
    const refusal = this.ledger.take(this.keys, bytes - this.held);
    if (refusal === null) this.held = bytes;
    return refusal;
  }

  /** Holds no more than `bytes`: a complete body gives back what its opening charge took beyond it. */
  shrinkTo(bytes: number): void {
    if (this.released || bytes >= this.held) return;
    this.ledger.give(this.keys, this.held - bytes);
    this.held = bytes;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.ledger.give(this.keys, this.held);
    this.held = 0;
  }
}

/** The key every address that is missing or does not parse shares. */
const UNKNOWN_ADDRESS = "-";

/** An IPv6 address's first `groups` 16-bit groups, as hex joined by ":". */
function ipv6Prefix(address: string, groups: number): string | undefined {
  const bytes = ipv6Bytes(address);
  if (!bytes) return undefined;
  const out = [];
  for (let i = 0; i < groups * 2; i += 2) out.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return out.join(":");
}

/**
 * The key an address's bodies are counted under: an IPv4 address as is (IPv4-mapped IPv6
 * included, a port dropped), an IPv6 address by its /64 (one host usually has a whole /64 to
 * pick from), and one shared key for every address that is missing or not an IP address.
 */
export function addressKey(address: string | null): string {
  const parsed = parseClientAddress(address);
  if (!parsed) return UNKNOWN_ADDRESS;
  if (isIPv4(parsed)) return parsed;
  const prefix = ipv6Prefix(parsed, 4);
  return prefix === undefined ? UNKNOWN_ADDRESS : `${prefix}::/64`;
}

/** The IPv6 /48 an address is in (undefined for IPv4 and unknown addresses: they have no second cap). */
export function networkKey(address: string | null): string | undefined {
  const parsed = parseClientAddress(address);
  if (!parsed || isIPv4(parsed)) return undefined;
  const prefix = ipv6Prefix(parsed, 3);
  return prefix === undefined ? undefined : `${prefix}::/48`;
}

export interface SliceUsage {
  used: number;
  limit: number;
  /** What anonymous requests hold now. */
  anonymous: number;
  address(address: string | null): number;
  network(address: string): number;
  principal(principal: string): number;
  target(target: string): number;
  keys: number;
}

export class BodyBudget {
  private readonly slices: Record<BodySlice, SliceLedger>;

  constructor(limits: BodyBudgetLimits) {
    for (const [name, slice] of Object.entries(limits)) {
      for (const value of [slice.bytes, slice.perAddress, slice.perNetwork, slice.perTarget ?? 1, slice.anonymous ?? 1]) {
        if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`the ${name} body budget needs positive limits, not ${value}`);
      }
    }
    this.slices = { capture: new SliceLedger(limits.capture), dashboard: new SliceLedger(limits.dashboard) };
  }

  /** Bytes held now, in both slices. */
  get used(): number {
    return this.slices.capture.used + this.slices.dashboard.used;
  }

  /** The most both slices may hold (MAX_BUFFERED_BODY_BYTES). */
  get limit(): number {
    return this.slices.capture.limits.bytes + this.slices.dashboard.limits.bytes;
  }

  /** What one slice holds now: in all, for an address, its /48, a principal, a target, and how many keys it tracks. */
  usage(slice: BodySlice): SliceUsage {
    const ledger = this.slices[slice];
    return {
      used: ledger.used,
      limit: ledger.limits.bytes,
      anonymous: ledger.anonymousUsed,
      address: (address) => ledger.byClient.get(addressKey(address)),
      network: (address) => ledger.byNetwork.get(networkKey(address) ?? ""),
      principal: (principal) => ledger.byClient.get(principalKey(principal)),
      target: (target) => ledger.byTarget.get(target),
      keys: ledger.byClient.size + ledger.byNetwork.size + ledger.byTarget.size,
    };
  }

  /** A new, empty hold for a body from `client` (to `target`, a capture's endpoint) in `slice`. */
  open(slice: BodySlice, client: BodyClient, target?: string): BodyHold {
    const keys: HoldKeys = client.principal
      ? { client: principalKey(client.principal), network: undefined, target, authenticated: client.authenticated ?? true }
      : { client: addressKey(client.address), network: networkKey(client.address), target, authenticated: client.authenticated ?? false };
    return new BodyHold(this.slices[slice], keys);
  }
}

/** A principal's key, apart from every address key. */
function principalKey(principal: string): string {
  return `principal:${principal}`;
}

/** MIN_BODY_BYTES_PER_SECOND and BODY_RATE_GRACE_MS: the least rate an upload must keep up (0: no minimum). */
export interface MinUploadRate {
  bytesPerSecond: number;
  graceMs: number;
}

/**
 * Whether an upload has fallen behind the minimum rate: it gets `graceMs`, and each byte it
 * sends earns it 1/bytesPerSecond of a second more (Apache's mod_reqtimeout MinRate). A slow
 * start is forgiven once the bytes catch up; a trickle that holds a socket is not.
 */
export function uploadTooSlow(startedAt: number, received: number, now: number, rate: MinUploadRate): boolean {
  if (rate.bytesPerSecond <= 0) return false;
  return now - startedAt > rate.graceMs + (received * 1000) / rate.bytesPerSecond;
}

/** Bodies this small (a form post, a login, most API writes and webhooks) are sent at once by real clients. */
export const SMALL_BODY_BYTES = 64 * 1024;
/** The grace of a small body (at most BODY_RATE_GRACE_MS): holding a slot with one costs a reopen every few seconds. */
export const SMALL_BODY_GRACE_MS = 2_000;

/**
 * The minimum rate for one upload: a body known to be small (its declared length, or the
 * route's cap, at most SMALL_BODY_BYTES) gets SMALL_BODY_GRACE_MS instead of the full grace.
 */
export function uploadRateFor(declared: number | undefined, maxBytes: number, rate: MinUploadRate): MinUploadRate {
  const expected = Math.min(declared ?? Number.POSITIVE_INFINITY, maxBytes);
  return expected <= SMALL_BODY_BYTES ? { ...rate, graceMs: Math.min(rate.graceMs, SMALL_BODY_GRACE_MS) } : rate;
}
