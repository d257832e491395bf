import { attemptDestinationText, REMOVED_DESTINATION, type DeliveryState } from "@rehook/core";
import type { EventSummary, EventView } from "@rehook/services";
import { instant, statusColor } from "./table.js";
import { paint, printable } from "./terminal-text.js";

// Each destination's state as the tables print it: the API's words (deliveries[].status, from
// core's deliveryState), a pending one with its next attempt, a paused one naming what to resume.

/** A delivery's state in the API's words, a pending one with when it is tried again. */
function stateText(delivery: { status: DeliveryState; nextAttemptAt: Date | null }): string {
  return delivery.status === "pending" && delivery.nextAttemptAt ? `pending (next ${instant(delivery.nextAttemptAt)})` : delivery.status;
}

/** The events list's DELIVERIES cell: "Main delivered, Billing paused" (empty for an event that went nowhere). */
export function deliveriesCell(event: Pick<EventSummary, "deliveries">): string {
  return event.deliveries.map((delivery) => `${delivery.name ?? REMOVED_DESTINATION} ${stateText(delivery)}`).join(", ");
}

/** A paused or failed delivery colours the cell like a failed event; a pending one like a pending event. */
export function deliveriesColor(event: Pick<EventSummary, "deliveries">): number | undefined {
  const states = new Set(event.deliveries.map((delivery) => delivery.status));
  if (states.has("failed") || states.has("paused")) return statusColor("failed");
  if (states.has("pending")) return statusColor("pending");
  return undefined;
}

/**
 * An event's deliveries for `rehook events get`: one block per destination (its state, name and
 * URL, its attempts), and for a paused one which destination to resume.
 */
export function deliveryLines(event: Pick<EventView, "endpointId" | "deliveries" | "attempts">, color: boolean): string[] {
  const lines: string[] = [];
  const shown = new Set<string | null>();
  for (const delivery of event.deliveries) {
    shown.add(delivery.destinationId);
    const where = attemptDestinationText({ kind: "destination", destinationId: delivery.destinationId, name: delivery.name, url: delivery.url });
    lines.push(`  ${paint(color, statusColor(delivery.status === "paused" ? "failed" : delivery.status), stateText(delivery).padEnd(9))}  ${printable(where)}`);
    if (delivery.status === "paused") {
      lines.push(`             waits until ${printable(delivery.name ?? REMOVED_DESTINATION)} is resumed (its circuit breaker is open): the endpoint's page, or POST /api/v1/endpoints/${event.endpointId}/destinations/${delivery.destinationId}/resume`);
    }
    lines.push(...attemptLines(event.attempts.filter((attempt) => attempt.destinationId === delivery.destinationId), color));
  }
  // Attempts to destinations the event no longer lists (a pending delivery cancelled with its destination).
  const others = event.attempts.filter((attempt) => !shown.has(attempt.destinationId));
  if (others.length > 0) lines.push(`  ${REMOVED_DESTINATION.toLowerCase()}s`, ...attemptLines(others, color));
  return lines;
}

function attemptLines(attempts: EventView["attempts"], color: boolean): string[] {
  return attempts.map((attempt) => {
    const answer = attempt.responseStatus !== null ? String(attempt.responseStatus) : printable(attempt.error ?? "no answer");
    return `    #${String(attempt.attempt).padEnd(3)} ${instant(attempt.startedAt)}  ${paint(color, statusColor(attempt.outcome), attempt.outcome.padEnd(9))}  ${answer}  ${attempt.latencyMs} ms`;
  });
}
