import { Badge } from "./badges";
import "./delivery-states.css";

/*
 * Where an event went when its endpoint forwards to several destinations: one delivery per
 * destination it was routed to (or filtered away from, on the event's page). Destination
 * names are the tenant's text: shown as text only.
 */

export type DeliveryState = "pending" | "delivered" | "failed" | "filtered";

export const DELIVERY_STATE_LABELS: Record<DeliveryState, string> = {
  pending: "Pending",
  delivered: "Delivered",
  failed: "Failed",
  filtered: "Filtered out",
};

/** A delivery's state as a badge: Pending, Delivered, Failed or Filtered out. */
export function DeliveryStateBadge({ status }: { status: DeliveryState }) {
  return (
    <Badge tone={status === "filtered" ? "duplicate" : status} data-testid="delivery-state" data-delivery-status={status}>
      {DELIVERY_STATE_LABELS[status]}
    </Badge>
  );
}

/** A destination whose name is unknown (removed since). */
export const REMOVED_DESTINATION = "Removed destination";

/**
 * A feed row's deliveries, when there are several: a dot per destination (its name and state
 * on hover) and "2/3 delivered". One delivery or none shows nothing: the row's status says it all.
 */
export function DeliveryDots({ deliveries }: { deliveries: ReadonlyArray<{ destinationId: string; name: string | null; status: Exclude<DeliveryState, "filtered"> }> | undefined }) {
  if (!deliveries || deliveries.length < 2) return null;
  const delivered = deliveries.filter((delivery) => delivery.status === "delivered").length;
  const summary = `${delivered}/${deliveries.length} delivered`;
  const detail = deliveries.map((delivery) => `${delivery.name ?? REMOVED_DESTINATION}: ${DELIVERY_STATE_LABELS[delivery.status]}`).join("; ");
  return (
    <span className="delivery-dots" data-testid="delivery-dots" title={detail} aria-label={`${summary}: ${detail}`} role="img">
      <span className="delivery-dots-marks" aria-hidden="true">
        {deliveries.map((delivery) => (
          <span
            key={delivery.destinationId}
            className={`delivery-dot is-${delivery.status}`}
            data-testid="delivery-dot"
            data-destination={delivery.name ?? ""}
            data-delivery-status={delivery.status}
            title={`${delivery.name ?? REMOVED_DESTINATION}: ${DELIVERY_STATE_LABELS[delivery.status]}`}
          />
        ))}
      </span>
      <span className="delivery-dots-text" aria-hidden="true" data-testid="delivery-summary">
        {summary}
      </span>
    </span>
  );
}
