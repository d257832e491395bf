import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { AttemptTimeline } from "../../components/attempts";
import { TimeUntil } from "../../components/delivery";
import { DeliveryStateBadge, REMOVED_DESTINATION } from "../../components/delivery-states";
import { Card } from "../../components/ui";
import { plural } from "../../lib/format";
import { RetryNowButton, RetryNowFeedback, type RetryState } from "./attempts-card";
import { DeliveryResolution } from "./delivery-resolution";
import type { EventPageData } from "./event-data.server";

type EventData = EventPageData["event"];
type Delivery = EventData["deliveries"][number];
type Attempt = EventData["attempts"][number];

/** What a waiting delivery says instead of its due time while its destination is paused. */
const DESTINATION_PAUSED_TEXT = "Paused: resumes when the destination is resumed";

/**
 * The event's attempts grouped by destination (the server names each attempt's destination,
 * those of before routing included); any whose destination is no longer listed (a pending
 * delivery cancelled with its destination) come last on their own.
 */
export function groupAttempts(deliveries: Delivery[], attempts: Attempt[]): { byDestination: Map<string | null, Attempt[]>; other: Attempt[] } {
  const byDestination = new Map<string | null, Attempt[]>(deliveries.map((delivery) => [delivery.destinationId, []]));
  const other: Attempt[] = [];
  for (const attempt of attempts) {
    const group = byDestination.get(attempt.destinationId);
    if (group) group.push(attempt);
    else other.push(attempt);
  }
  return { byDestination, other };
}

/**
 * Where an event went when its endpoint forwards to several destinations: each destination
 * with its state (Filtered out when its filter let the event by), attempts, next retry, and
 * its attempt timeline; Retry now for the ones that failed or wait.
 */
export function DeliveriesCard({
  event,
  canRetry,
  retry,
  retryLocked,
  onRetry,
  onResolved,
}: {
  event: EventData;
  canRetry: boolean;
  retry: RetryState;
  retryLocked?: string;
  onRetry: () => void;
  /** A failed delivery was marked resolved: the page reads the event again. */
  onResolved: () => void;
}) {
  const { byDestination, other } = groupAttempts(event.deliveries, event.attempts);
  const routed = event.deliveries.filter((delivery) => delivery.status !== "filtered").length;
  return (
    <Card
      title={
        <>
          Deliveries <span className="count-pill">{event.deliveries.length}</span>
        </>
      }
      description={
        routed === event.deliveries.length
          ? `Sent to ${plural(routed, "destination")}: each is delivered, retried and paused on its own.`
          : `Sent to ${routed} of ${plural(event.deliveries.length, "destination")} (the others’ filters did not match it): each is delivered, retried and paused on its own.`
      }
      actions={canRetry ? <RetryNowButton retry={retry} locked={retryLocked} onRetry={onRetry} /> : undefined}
      className="attempts-card deliveries-card"
    >
      <ol className="delivery-groups">
        {event.deliveries.map((delivery) => (
          <DeliveryGroup
            key={delivery.destinationId ?? "removed"}
            event={event}
            delivery={delivery}
            attempts={byDestination.get(delivery.destinationId) ?? []}
            resolution={<DeliveryResolution eventId={event.id} delivery={delivery} locked={retryLocked} onResolved={onResolved} />}
          />
        ))}
        {other.length > 0 ? (
          <li className="delivery-group" data-testid="delivery-other">
            <div className="delivery-group-head">
              <span className="delivery-group-name">Other attempts</span>
              <span className="muted small">to destinations removed since</span>
            </div>
            <AttemptTimeline eventId={event.id} attempts={other} nextAttemptAt={null} label="Attempts to removed destinations, oldest first" />
          </li>
        ) : null}
      </ol>
      <RetryNowFeedback retry={retry} />
    </Card>
  );
}

/** One destination's part: name, state, URL, attempts and the next one (a paused one: where to resume it), and a failed one's resolution. */
function DeliveryGroup({ event, delivery, attempts, resolution }: { event: EventData; delivery: Delivery; attempts: Attempt[]; resolution: ReactNode }) {
  const name = delivery.name ?? REMOVED_DESTINATION;
  const paused = delivery.status === "paused";
  const waiting = delivery.status === "pending" ? delivery.nextAttemptAt : null;
  return (
    <li className="delivery-group" data-testid="delivery" data-destination-id={delivery.destinationId ?? undefined} data-status={delivery.status}>
      <div className="delivery-group-head">
        <span className="delivery-group-name" data-testid="delivery-name">
          {name}
        </span>
        <DeliveryStateBadge status={delivery.status} />
        <span className="delivery-group-facts muted small">
          <span data-testid="delivery-attempts">{plural(delivery.attempts, "attempt")}</span>
          {paused ? (
            <span data-testid="delivery-next">
              {DESTINATION_PAUSED_TEXT} (<Link to={`/endpoints/${event.endpointId}#destinations`}>resume it</Link>)
            </span>
          ) : waiting ? (
            <span data-testid="delivery-next">
              Next attempt <TimeUntil value={waiting} className="fg" />
            </span>
          ) : delivery.status === "pending" ? (
            <span data-testid="delivery-next">Sending now</span>
          ) : null}
        </span>
      </div>
      {delivery.url ? (
        <p className="delivery-group-url mono break" data-testid="delivery-url">
          {delivery.url}
        </p>
      ) : null}
      {delivery.status === "filtered" ? (
        <p className="muted small" data-testid="delivery-filtered" data-reason={delivery.filterReason ?? undefined}>
          {delivery.filterReason === "work_budget_exceeded"
            ? "Filter work budget exceeded: this endpoint’s filters needed more work on this event than one capture may spend (a very large body or filter), so it did not match and was not sent there. "
            : "Its filter did not match this event, so it was not sent there. "}
          <Link to={`/endpoints/${event.endpointId}#destinations`}>See the filter</Link>
        </p>
      ) : attempts.length > 0 || waiting || paused ? (
        <AttemptTimeline eventId={event.id} attempts={attempts} nextAttemptAt={delivery.nextAttemptAt} paused={paused} pausedText={DESTINATION_PAUSED_TEXT} label={`Attempts to ${name}, oldest first`} />
      ) : (
        <p className="muted small">No attempt has finished yet.</p>
      )}
      {resolution}
    </li>
  );
}
