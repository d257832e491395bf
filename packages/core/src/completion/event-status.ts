import type { EventStatus } from "../events.js";

// An event's status sums up its deliveries (one per destination its filter let through). The
// completion statement (packages/db deliveries.ts COMPLETE, `summed`) and the re-sum after a
// change by hand (event-status.ts RESUM_EVENTS) do this in SQL; this is the rule they mirror.

export const DELIVERY_ROW_STATUSES = ["pending", "delivered", "failed"] as const;
export type DeliveryRowStatus = (typeof DELIVERY_ROW_STATUSES)[number];

export interface SettledDelivery {
  status: DeliveryRowStatus;
  /** A pending delivery waiting for its retry: when it is due (epoch ms); null when it is due now or being sent. */
  nextAttemptAt: number | null;
}

export interface EventCompletion {
  status: Extract<EventStatus, "captured" | "pending" | "delivered" | "failed">;
  /** The soonest retry, when every pending delivery waits for one; null when one is due or under way, or none is pending. */
  nextAttemptAt: number | null;
}

/**
 * failed once any delivery finally failed (the on-call view: a failure is never hidden by the
 * others still pending), else pending while any is pending, else delivered; captured with none.
 */
export function eventStatusOfDeliveries(deliveries: readonly SettledDelivery[]): EventCompletion {
  if (deliveries.length === 0) return { status: "captured", nextAttemptAt: null };
  const pending = deliveries.filter((delivery) => delivery.status === "pending");
  const status = deliveries.some((delivery) => delivery.status === "failed") ? "failed" : pending.length > 0 ? "pending" : "delivered";
  const waiting = pending.map((delivery) => delivery.nextAttemptAt);
  const nextAttemptAt = waiting.length > 0 && waiting.every((at) => at !== null) ? Math.min(...(waiting as number[])) : null;
  return { status, nextAttemptAt };
}
