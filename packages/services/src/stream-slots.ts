import { UserError } from "@rehook/core";

/** Open event streams one user may hold on an instance (`rehook listen` and dashboard tabs together). */
export const MAX_STREAMS_PER_USER = 10;
/** Open event streams one instance serves. */
export const MAX_STREAMS_PER_INSTANCE = 1_000;

export interface StreamLimits {
  perUser: number;
  perInstance: number;
}

/**
 * Counts the open event streams of one instance, per user and in all: both kinds (the public
 * API's stream and the dashboard's live feed) take a slot while open, so neither one user nor
 * everyone together can hold an unbounded number of connections, bus listeners and queries.
 */
export class StreamSlots {
  private readonly perUser = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: StreamLimits = { perUser: MAX_STREAMS_PER_USER, perInstance: MAX_STREAMS_PER_INSTANCE }) {}

  /**
   * Takes a slot for the user, or throws `rate_limited` saying which limit was reached. The
   * returned release may be called any number of times; only the first counts.
   */
  take(userId: string): () => void {
    const mine = this.perUser.get(userId) ?? 0;
    if (mine >= this.limits.perUser) {
      throw new UserError("rate_limited", `You have too many open event streams (at most ${this.limits.perUser} per user). Close one, a dashboard tab or a rehook listen, and try again.`);
    }
    if (this.total >= this.limits.perInstance) {
      throw new UserError("rate_limited", `This server has ${this.limits.perInstance} open event streams, its limit. Try again in a minute.`);
    }
    this.perUser.set(userId, mine + 1);
    this.total += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total -= 1;
      const left = (this.perUser.get(userId) ?? 1) - 1;
      if (left > 0) this.perUser.set(userId, left);
      else this.perUser.delete(userId);
    };
  }

  /** Open streams of one user, or of everyone. */
  open(userId?: string): number {
    return userId === undefined ? this.total : (this.perUser.get(userId) ?? 0);
  }
}

// One instance is one event bus (one LISTEN connection), and every stream listens on it: the
// bus identifies the instance, so both stream kinds share its slots without extra wiring.
const slotsByInstance = new WeakMap<object, StreamSlots>();

/** The stream slots of the instance this bus belongs to (created with the default limits). */
export function streamSlotsOf(bus: object): StreamSlots {
  let slots = slotsByInstance.get(bus);
  if (!slots) {
    slots = new StreamSlots();
    slotsByInstance.set(bus, slots);
  }
  return slots;
}

/** Sets an instance's stream limits (before it serves streams): other limits than the defaults. */
export function limitStreams(bus: object, limits: StreamLimits): StreamSlots {
  const slots = new StreamSlots(limits);
  slotsByInstance.set(bus, slots);
  return slots;
}

/**
 * Takes a slot for a stream that ends when `signal` aborts (or when the returned release is
 * called, e.g. by the stream's own end): a stream whose generator never starts still gives
 * its slot back when its connection closes.
 */
export function takeStreamSlot(bus: object, userId: string, signal: AbortSignal): () => void {
  const release = streamSlotsOf(bus).take(userId);
  if (signal.aborted) release();
  else signal.addEventListener("abort", release, { once: true });
  return release;
}
