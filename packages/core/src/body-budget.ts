import { isIPv4 } from "node:net";
import { ipv6Bytes } from "./addresses.js";

/*
 * What request bodies being read may hold in memory at once in one process
 * (MAX_BUFFERED_BODY_BYTES), kept in two slices: captures, and the dashboard's and API's own
 * routes (sign-in, forms, tRPC, /api/v1, the replay route), so a flood on capture URLs cannot
 * stop an operator signing in or an API client writing, nor the reverse. Within a slice one
 * client address, and for captures one endpoint, may hold only part of it. Bytes are taken
 * as they arrive, never as a Content-Length promises: holding the budget costs a client the
 * bytes it sent, plus a small charge for each upload it keeps open.
 */

/** Which part of the body budget a route's bodies draw on. */
export type BodySlice = "capture" | "dashboard";

export interface SliceLimits {
  /** Bytes this slice's bodies may hold at once. */
  bytes: number;
  /** What bodies from one client address may hold at once. */
  perAddress: number;
  /** What bodies to one target (a capture URL's endpoint) may hold at once (unset: no cap of its own). */
  perTarget?: number;
}

export type BodyBudgetLimits = Record<BodySlice, SliceLimits>;

/**
 * What an upload costs while it is open, whatever it has sent: a socket's read buffer (node's
 * stream high-water mark) holds this much before the body is read. Charging it bounds the
 * uploads one address can keep open by its cap, however small the lengths they declare.
 */
export const OPEN_UPLOAD_BYTES = 16 * 1024;

/** Which limit had no room: the client's address, the target endpoint, or the slice as a whole. */
export type BodyRefusal = "address" | "target" | "slice";

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

class SliceLedger {
  used = 0;
  readonly byAddress = new Tally();
  readonly byTarget = new Tally();

  constructor(readonly limits: SliceLimits) {}

  take(address: string, target: string | undefined, bytes: number): BodyRefusal | null {
    if (this.byAddress.get(address) + bytes > this.limits.perAddress) return "address";
    if (target !== undefined && this.limits.perTarget !== undefined && this.byTarget.get(target) + bytes > this.limits.perTarget) return "target";
    if (this.used + bytes > this.limits.bytes) return "slice";
    this.move(address, target, bytes);
    return null;
  }

  give(address: string, target: string | undefined, bytes: number): void {
    this.move(address, target, -bytes);
  }

  private move(address: string, target: string | undefined, bytes: number): void {
    this.used += bytes;
    this.byAddress.add(address, bytes);
    if (target !== undefined) this.byTarget.add(target, bytes);
  }
}

/** One request body's part of the budget. Release it once the body is no longer needed (further releases are no-ops). */
export class BodyHold {
  private held = 0;
  private released = false;

  constructor(
    private readonly ledger: SliceLedger,
    private readonly address: string,
    private readonly target: string | undefined,
  ) {}

  get bytes(): number {
    return this.held;
  }

  /** Holds at least `bytes` in all, taking the difference; on a refusal nothing more is taken. */
  reserve(bytes: number): BodyRefusal | null {
    if (this.released) return "slice";
    if (bytes <= this.held) return null;
    const refusal = this.ledger.take(this.address, this.target, bytes - this.held);
    if (refusal === null) this.held = bytes;
    return refusal;
  }

  /** Holds no more than `bytes`: a complete body gives back what its opening charge took beyond it. */
  shrinkTo(bytes: number): void {
    if (this.released || bytes >= this.held) return;
    this.ledger.give(this.address, this.target, this.held - bytes);
    this.held = bytes;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.ledger.give(this.address, this.target, this.held);
    this.held = 0;
  }
}

/**
 * The key an address's bodies are counted under: an IPv4 address as is (IPv4-mapped IPv6
 * included), an IPv6 address by its /64 (one host usually has a whole /64 to pick from),
 * "-" when the address is unknown.
 */
export function addressKey(address: string | null): string {
  if (!address) return "-";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address)) return address;
  const bytes = ipv6Bytes(address);
  if (!bytes) return address;
  const groups = [];
  for (let i = 0; i < 8; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(":")}::/64`;
}

export class BodyBudget {
  private readonly slices: Record<BodySlice, SliceLedger>;

  constructor(limits: BodyBudgetLimits) {
    for (const [name, slice] of Object.entries(limits)) {
      for (const value of [slice.bytes, slice.perAddress, slice.perTarget ?? 1]) {
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

  /** What one slice holds now: in all, for an address, for a target, and how many keys it tracks. */
  usage(slice: BodySlice): { used: number; limit: number; address(address: string | null): number; target(target: string): number; keys: number } {
    const ledger = this.slices[slice];
    return {
      used: ledger.used,
      limit: ledger.limits.bytes,
      address: (address) => ledger.byAddress.get(addressKey(address)),
      target: (target) => ledger.byTarget.get(target),
      keys: ledger.byAddress.size + ledger.byTarget.size,
    };
  }

  /** A new, empty hold for a body from `address` (to `target`, a capture's endpoint) in `slice`. */
  open(slice: BodySlice, address: string | null, target?: string): BodyHold {
    return new BodyHold(this.slices[slice], addressKey(address), target);
  }
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
