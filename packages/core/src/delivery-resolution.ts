/**
 * When a failure counts as dealt with. A failed delivery is resolved only by a later attempt
 * to the same destination that delivered (a replay targeting that destination; a retry that
 * delivers makes the delivery delivered instead), or by a member marking it resolved with a
 * note. A replay to any other URL (staging, local, custom) resolves nothing. The SQL that
 * lists and filters events mirrors eventResolved (packages/db, queries/events.ts), and a test
 * checks both on the same cases.
 */

export interface ResolvableDelivery {
  destinationId: string;
  status: "pending" | "delivered" | "failed" | "filtered";
  /** When it was resolved (null: not resolved). */
  resolvedAt: Date | null;
}

/** The longest note a member may give when marking a delivery resolved. */
export const MAX_RESOLUTION_NOTE_LENGTH = 2_000;

/**
 * A failed event is resolved when it has failed deliveries and every one of them is
 * resolved; its status stays failed. Events of any other status are never "resolved": they
 * did not fail (or not yet).
 */
export function eventResolved(eventStatus: string, deliveries: readonly Pick<ResolvableDelivery, "status" | "resolvedAt">[]): boolean {
  if (eventStatus !== "failed") return false;
  const failed = deliveries.filter((delivery) => delivery.status === "failed");
  return failed.length > 0 && failed.every((delivery) => delivery.resolvedAt !== null);
}

/** Whether a replay attempt resolves this delivery: it delivered, to this very destination, and the delivery is failed and unresolved. */
export function replayResolves(delivery: ResolvableDelivery, attempt: { destinationId: string | null; status: string }): boolean {
  return attempt.status === "delivered" && attempt.destinationId === delivery.destinationId && delivery.status === "failed" && delivery.resolvedAt === null;
}

/** Whether a member may mark this delivery resolved, or why not (a conflict with its state). */
export function markResolvedRefusal(delivery: ResolvableDelivery): string | null {
  if (delivery.status !== "failed") return `This delivery is ${delivery.status}, not failed: only a failed delivery can be marked resolved.`;
  if (delivery.resolvedAt !== null) return `This delivery was resolved already, at ${delivery.resolvedAt.toISOString()}.`;
  return null;
}
