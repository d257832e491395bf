import { Link } from "@remix-run/react";
import { EndpointActivityCharts, RangeControl } from "../../components/activity-charts";
import { StatusBadge } from "../../components/badges";
import { DeliveryDots } from "../../components/delivery-states";
import { RelativeTime } from "../../components/relative-time";
import { Card, Icon } from "../../components/ui";
import { formatLatency } from "../../lib/format";
import type { EndpointPageData } from "./endpoint-data.server";

/** The charts over the chosen range (the card says so when they could not be loaded). */
export function ActivityCard({ endpoint, range, activity }: Pick<EndpointPageData, "endpoint" | "range" | "activity">) {
  return (
    <Card
      title="Activity"
      id="activity"
      className="activity-card"
      description="Events captured and delivery outcomes over time, and how long the destination took to answer."
      actions={<RangeControl current={range} hrefFor={(choice) => `?range=${choice}`} />}
    >
      {activity ? (
        <EndpointActivityCharts series={activity} forwards={endpoint.destinationUrl !== null} />
      ) : (
        <p className="muted">The charts could not be loaded. Reload the page to try again.</p>
      )}
    </Card>
  );
}

/** The five newest events, each linking to its page. */
export function RecentEventsCard({ recent, more, activityHref }: Pick<EndpointPageData, "recent" | "more"> & { activityHref: string }) {
  return (
    <Card
      title="Recent events"
      actions={
        <Link to={activityHref} className="text-link">
          All events <Icon name="arrow-right" />
        </Link>
      }
    >
      {recent.length === 0 ? (
        <p className="muted">No events yet. Send the test event above and it will show up here and in Activity.</p>
      ) : (
        <ul className="mini-feed">
          {recent.map((event) => (
            <li key={event.id}>
              <Link to={`/events/${event.id}`} className="mini-feed-link">
                <StatusBadge status={event.status} />
                <span className="mini-feed-type">
                  {event.eventType || "—"}
                  {(event.deliveries?.length ?? 0) > 1 ? (
                    <>
                      {" "}
                      <DeliveryDots deliveries={event.deliveries} />
                    </>
                  ) : null}
                </span>
                <span className="muted mini-feed-source">{event.source}</span>
                <span className="muted mini-feed-latency">{formatLatency(event.latencyMs)}</span>
                <RelativeTime value={event.receivedAt} className="muted mini-feed-time" />
              </Link>
            </li>
          ))}
        </ul>
      )}
      {more ? <p className="muted small">Showing the 5 newest.</p> : null}
    </Card>
  );
}
