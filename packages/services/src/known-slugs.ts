export interface KnownSlugsOptions {
  /** The endpoints with these slugs, slug → id (asks the database; unknown slugs are absent). */
  lookup(slugs: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** Most slugs remembered as existing; the oldest learnt is forgotten first. */
  maxKnown?: number;
  /** Most slugs remembered as unknown; the oldest is forgotten first. */
  maxUnknown?: number;
  /** How long a slug is remembered as unknown. */
  unknownTtlMs?: number;
  /** Most slugs one lookup asks about. */
  maxBatch?: number;
  /** Most slugs waiting for a lookup; past it, exists() rejects (the capture answers 503). */
  maxWaiting?: number;
  /** Monotonic milliseconds (tests move it). */
  now?: () => number;
}

export const DEFAULT_KNOWN_SLUGS = 50_000;
export const DEFAULT_UNKNOWN_SLUGS = 10_000;
export const DEFAULT_UNKNOWN_SLUG_TTL_MS = 60_000;
export const MAX_SLUG_LOOKUP_BATCH = 500;
export const MAX_SLUGS_WAITING_FOR_LOOKUP = 10_000;

/** Thrown by exists() when more slugs wait for a lookup than it allows. */
export class SlugLookupBusyError extends Error {
  override name = "SlugLookupBusyError";
}

interface Waiting {
  promise: Promise<boolean>;
  resolve(exists: boolean): void;
  reject(error: unknown): void;
}

/**
 * Whether a capture slug belongs to an endpoint, answered before the capture's body is read,
 * so a made-up or deleted slug costs no body in memory. Known slugs answer synchronously from
 * memory (the capture path's common case). Others are looked up in batches, one statement at
 * a time (as group commit does): a flood of made-up slugs costs one pool connection, never
 * the capture pool. What is stored never depends on this: the capture statement finds the
 * endpoint itself, so a deleted endpoint's slug is refused at once even while it is still
 * remembered here (its body is then read, and answered 404).
 *
 * The event bus keeps it true: a deleted endpoint's slug is forgotten, a created endpoint
 * forgets every remembered unknown slug (slugs are random, but one may have been tried before
 * it existed), and a reconnect (announcements may have been missed) forgets all. A lookup
 * that raced with such a change answers its captures but is not remembered.
 */
export class KnownSlugs {
  private readonly known = new Map<string, string>();
  private readonly slugOf = new Map<string, string>();
  private readonly unknown = new Map<string, number>();
  private readonly waiting = new Map<string, Waiting>();
  private queued: string[] = [];
  private inFlight = false;
  private generation = 0;
  private readonly lookup: KnownSlugsOptions["lookup"];
  private readonly maxKnown: number;
  private readonly maxUnknown: number;
  private readonly unknownTtlMs: number;
  private readonly maxBatch: number;
  private readonly maxWaiting: number;
  private readonly now: () => number;

  constructor(options: KnownSlugsOptions) {
    this.lookup = options.lookup;
    this.maxKnown = options.maxKnown ?? DEFAULT_KNOWN_SLUGS;
    this.maxUnknown = options.maxUnknown ?? DEFAULT_UNKNOWN_SLUGS;
    this.unknownTtlMs = options.unknownTtlMs ?? DEFAULT_UNKNOWN_SLUG_TTL_MS;
    this.maxBatch = options.maxBatch ?? MAX_SLUG_LOOKUP_BATCH;
    this.maxWaiting = options.maxWaiting ?? MAX_SLUGS_WAITING_FOR_LOOKUP;
    this.now = options.now ?? (() => performance.now());
  }

  /** true or false from memory, else the lookup's answer (rejects when the database cannot say). */
  exists(slug: string): boolean | Promise<boolean> {
    if (this.known.has(slug)) return true;
    const forgottenAt = this.unknown.get(slug);
    if (forgottenAt !== undefined) {
      if (this.now() - forgottenAt <= this.unknownTtlMs) return false;
      this.unknown.delete(slug);
    }
    const already = this.waiting.get(slug);
    if (already) return already.promise;
    if (this.waiting.size >= this.maxWaiting) return Promise.reject(new SlugLookupBusyError("too many slugs are waiting for a lookup"));
    let resolve!: (exists: boolean) => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<boolean>((yes, no) => {
      resolve = yes;
      reject = no;
    });
    this.waiting.set(slug, { promise, resolve, reject });
    this.queued.push(slug);
    if (!this.inFlight) void this.lookUpQueued();
    return promise;
  }

  /** An endpoint.changed announcement from the event bus. */
  endpointChanged(endpointId: string, change: "created" | "updated" | "deleted"): void {
    if (change === "created") {
      this.generation += 1;
      this.unknown.clear();
    } else if (change === "deleted") {
      this.generation += 1;
      const slug = this.slugOf.get(endpointId);
      if (slug === undefined) return;
      this.slugOf.delete(endpointId);
      this.known.delete(slug);
    }
  }

  /** Forgets everything (the event bus reconnected: announcements may have been missed). */
  clear(): void {
    this.generation += 1;
    this.known.clear();
    this.slugOf.clear();
    this.unknown.clear();
  }

  get size(): { known: number; unknown: number; waiting: number } {
    return { known: this.known.size, unknown: this.unknown.size, waiting: this.waiting.size };
  }

  /** One statement at a time; slugs that arrive meanwhile go in the next. */
  private async lookUpQueued(): Promise<void> {
    this.inFlight = true;
    while (this.queued.length > 0) {
      const batch = this.queued.slice(0, this.maxBatch);
      this.queued = this.queued.slice(batch.length);
      const generation = this.generation;
      let found: ReadonlyMap<string, string> | undefined;
      let failure: unknown;
      try {
        found = await this.lookup(batch);
      } catch (error) {
        failure = error;
      }
      for (const slug of batch) {
        const waiter = this.waiting.get(slug)!;
        this.waiting.delete(slug);
        if (!found) {
          waiter.reject(failure);
          continue;
        }
        const endpointId = found.get(slug) ?? null;
        if (generation === this.generation) this.remember(slug, endpointId);
        waiter.resolve(endpointId !== null);
      }
    }
    this.inFlight = false;
  }

  private remember(slug: string, endpointId: string | null): void {
    if (endpointId === null) {
      if (this.unknown.size >= this.maxUnknown) this.unknown.delete(this.unknown.keys().next().value!);
      this.unknown.set(slug, this.now());
      return;
    }
    if (this.known.size >= this.maxKnown) {
      const [oldest, oldestId] = this.known.entries().next().value!;
      this.known.delete(oldest);
      this.slugOf.delete(oldestId);
    }
    this.known.set(slug, endpointId);
    this.slugOf.set(endpointId, slug);
  }
}
