import { Link } from "@remix-run/react";
import { ForwardedTo } from "../../components/forwarded-to";
import { useExactTime } from "../../components/relative-time";
import { Card, Detail } from "../../components/ui";
import { formatBytes, formatLatency } from "../../lib/format";
import type { EventPageData } from "./event-data.server";

/** Where the event came from and went, its size, sender and id. */
export function DetailsCard({ event }: { event: EventPageData["event"] }) {
  const receivedAt = useExactTime(event.receivedAt);
  return (
    <Card title="Details">
      <dl className="kv details-grid">
        <Detail term="Endpoint">
          <Link to={`/endpoints/${event.endpointId}`}>{event.endpointName}</Link>
        </Detail>
        <Detail term="Received" suppressHydrationWarning>
          {receivedAt}
        </Detail>
        <Detail term="Forwarded to" wide>
          {event.status === "duplicate" ? (
            <span className="muted">Not forwarded (a duplicate)</span>
          ) : event.destinationUrl ? (
            <ForwardedTo destinationUrl={event.destinationUrl} target={event.forwardTarget} />
          ) : (
            <span className="muted">Not forwarded (capture only)</span>
          )}
        </Detail>
        <Detail term="Latency">{formatLatency(event.latencyMs)}</Detail>
        <Detail term="Content type" className="mono break">
          {event.contentType ?? <span className="muted">none</span>}
        </Detail>
        <Detail term="Size">{formatBytes(event.sizeBytes)}</Detail>
        <Detail term="Client IP" className="mono">
          {event.clientIp ?? <span className="muted">unknown</span>}
        </Detail>
        <Detail term="Event ID" wide className="mono break">
          {event.id}
        </Detail>
      </dl>
    </Card>
  );
}
