import { Link } from "@remix-run/react";
import { DELIVERY_STATE_LABELS, REMOVED_DESTINATION, summariseDeliveries, type DeliveryFacts, type DeliveryState, type DeliverySummary } from "@rehook/core/browser";
import { toDate } from "../lib/format";
import { Badge, StatusBadge } from "./badges";
import { TimeUntil } from "./delivery";
import "./delivery-states.css";

/*
 * Where an event went when its endpoint forwards to several destinations: one delivery per
 * destination it was routed to or filtered away from, in the server's words (core's
 * deliveryState: a pending delivery held by a paused destination is paused, never "retrying").
 * Destination names are the tenant's text: shown as text only.
 */

export { DELIVERY_STATE_LABELS, REMOVED_DESTINATION, type DeliveryState };

/** A delivery as lists and the event page carry it (times are strings after a loader). */
export interface ListedDelivery {
  destinationId: string | null;
  name: string | null;
  status: DeliveryState;
  nextAttemptAt: Date | string | null;
}

/** The deliveries summed up by core's rule (how many delivered, which paused, the next retry). */
export function deliverySummary(deliveries: readonly ListedDelivery[] | undefined): DeliverySummary {
  const facts: DeliveryFacts[] = (deliveries ?? []).map((delivery) => ({
    destinationId: delivery.destinationId,
    name: delivery.name,
    state: delivery.status,
    nextAttemptAt: delivery.nextAttemptAt === null ? null : toDate(delivery.nextAttemptAt),
  }));
  return summariseDeliveries(facts);
}

const BADGE_TONES: Record<DeliveryState, string> = { pending: "pending", paused: "paused", delivered: "delivered", failed: "failed", filtered: "duplicate" };

/** A delivery's state as a badge: Pending, Paused, Delivered, Failed or Filtered out. */
export function DeliveryStateBadge({ status }: { status: DeliveryState }) {
  return (
    <Badge tone={BADGE_TONES[status]} data-testid="delivery-state" data-delivery-status={status}>
      {DELIVERY_STATE_LABELS[status]}
    </Badge>
  );
}

/** The event's status, or Paused when nothing moves until a paused destination is resumed. */
export function EventStateBadge({ status, summary }: { status: string; summary: DeliverySummary }) {
  if (status === "pending" && summary.heldByPause) {
    return (
      <Badge tone="paused" data-testid="event-paused" title="Waiting: a destination it goes to is paused. It is sent once that destination is resumed.">
        Paused
      </Badge>
    );
  }
  return <StatusBadge status={status} />;
}

/** Names a list of destinations: "Billing", "Billing and CI", "Billing, CI and Ops". */
export function destinationNames(deliveries: ReadonlyArray<{ name: string | null }>): string {
  const names = deliveries.map((delivery) => delivery.name ?? REMOVED_DESTINATION);
  return names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/** Which destinations hold the event and where to resume them (the endpoint's Destinations section). */
export function ResumeHint({ endpointId, summary }: { endpointId: string; summary: DeliverySummary }) {
  if (summary.paused.length === 0) return null;
  return (
    <span className="delivery-resume" data-testid="row-paused">
      Paused at <span data-testid="paused-destinations">{destinationNames(summary.paused)}</span> ·{" "}
      <Link to={`/endpoints/${endpointId}#destinations`} onClick={(event) => event.stopPropagation()}>
        resume
      </Link>
    </span>
  );
}

/** "retrying in 30s" while a delivery still tries and a retry is scheduled; nothing while only paused ones wait. */
export function RetryingHint({ summary, fallback }: { summary: DeliverySummary; fallback: Date | string | null }) {
  const due = summary.routed > 0 ? summary.nextAttemptAt : fallback;
  if (!due || (summary.routed > 0 && !summary.trying)) return null;
  return (
    <span className="row-retrying" data-testid="row-retrying">
      retrying <TimeUntil value={due} />
    </span>
  );
}

/** One delivery's state in words, for a dot's title: "Billing: Paused", "CI: Pending". */
const dotTitle = (delivery: ListedDelivery) => `${delivery.name ?? REMOVED_DESTINATION}: ${DELIVERY_STATE_LABELS[delivery.status]}`;

/**
 * A feed row's deliveries, when there are several: a dot per destination (its name and state
 * on hover) and "2/3 delivered" (of those it was routed to). One delivery or none shows
 * nothing: the row's status says it all.
 */
export function DeliveryDots({ deliveries }: { deliveries: readonly ListedDelivery[] | undefined }) {
  if (!deliveries || deliveries.length < 2) return null;
  const summary = deliverySummary(deliveries);
  const text = `${summary.delivered}/${summary.routed} delivered`;
  const detail = deliveries.map(dotTitle).join("; ");
  return (
    <span className="delivery-dots" data-testid="delivery-dots" title={detail} aria-label={`${text}: ${detail}`} role="img">
      <span className="delivery-dots-marks" aria-hidden="true">
        {deliveries.map((delivery) => (
          <span
            key={delivery.destinationId ?? "removed"}
            className={`delivery-dot is-${delivery.status}`}
            data-testid="delivery-dot"
            data-destination={delivery.name ?? ""}
            data-delivery-status={delivery.status}
            title={dotTitle(delivery)}
          />
        ))}
      </span>
      <span className="delivery-dots-text" aria-hidden="true" data-testid="delivery-summary">
        {text}
      </span>
    </span>
  );
}
