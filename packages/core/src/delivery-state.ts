/*
 * How one event stands at one destination, in the words the dashboard, the API and the CLI
 * all use. A delivery row says pending, delivered or failed; a destination whose filter left
 * the event out has no row (filtered); and a pending delivery whose destination's circuit
 * breaker is open is not "retrying": it waits for that destination to be resumed (paused).
 */

/** A delivery's state, as every surface shows it. */
export const DELIVERY_STATES = ["pending", "paused", "delivered", "failed", "filtered"] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** What a delivery row stores (filtered: no row, the destination's filter left the event out). */
export type StoredDeliveryStatus = "pending" | "delivered" | "failed" | "filtered";

/** The words for each state, capitalised as a badge shows them. */
export const DELIVERY_STATE_LABELS: Record<DeliveryState, string> = {
  pending: "Pending",
  paused: "Paused",
  delivered: "Delivered",
  failed: "Failed",
  filtered: "Filtered out",
};

/**
 * A delivery's state from its row (or the filter's verdict) and whether its destination is
 * paused now. Only a pending delivery can be held: a finished one stays as it finished.
 */
export function deliveryState(delivery: { status: StoredDeliveryStatus; destinationPaused: boolean }): DeliveryState {
  return delivery.status === "pending" && delivery.destinationPaused ? "paused" : delivery.status;
}

/** One delivery as a summary reads it. */
export interface DeliveryFacts {
  destinationId: string | null;
  /** The destination's name now (null: removed since). */
  name: string | null;
  state: DeliveryState;
  /** While pending: when its next attempt is due (null: now, or under way). */
  nextAttemptAt: Date | null;
}

/** What an event's deliveries add up to, for a list row or a page header. */
export interface DeliverySummary {
  /** Deliveries the event was routed to (filtered ones left out). */
  routed: number;
  delivered: number;
  /** The deliveries held by a paused destination: each names the destination to resume. */
  paused: DeliveryFacts[];
  /** Some delivery is still trying (pending and not paused). */
  trying: boolean;
  /** The earliest due retry among those still trying (null: none scheduled, or one is due now). */
  nextAttemptAt: Date | null;
  /** Nothing moves until a destination is resumed: some are paused and none is still trying. */
  heldByPause: boolean;
}

/** Sums an event's deliveries up: how many delivered, which are paused, when the next attempt is due. */
export function summariseDeliveries(deliveries: readonly DeliveryFacts[]): DeliverySummary {
  const routed = deliveries.filter((delivery) => delivery.state !== "filtered");
  const trying = routed.filter((delivery) => delivery.state === "pending");
  const paused = routed.filter((delivery) => delivery.state === "paused");
  // One due now (or under way) makes "next attempt" now: the row does not say "in 5 min".
  const nextAttemptAt =
    trying.length === 0 || trying.some((delivery) => delivery.nextAttemptAt === null)
      ? null
      : trying.reduce((earliest, delivery) => (delivery.nextAttemptAt! < earliest ? delivery.nextAttemptAt! : earliest), trying[0]!.nextAttemptAt!);
  return {
    routed: routed.length,
    delivered: routed.filter((delivery) => delivery.state === "delivered").length,
    paused,
    trying: trying.length > 0,
    nextAttemptAt,
    heldByPause: paused.length > 0 && trying.length === 0,
  };
}

/**
 * The event's only delivery, when it went to exactly one destination (those it was filtered
 * away from aside): what "the response" and "the attempts" of an event mean. With several,
 * there is no such thing: each delivery has its own.
 */
export function soleDelivery<Delivery extends { status: DeliveryState }>(deliveries: readonly Delivery[]): Delivery | null {
  const routed = deliveries.filter((delivery) => delivery.status !== "filtered");
  return routed.length === 1 ? routed[0]! : null;
}
