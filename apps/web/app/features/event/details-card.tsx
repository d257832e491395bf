import { Link } from "@remix-run/react";
import { ForwardedTo } from "../../components/forwarded-to";
import { useExactTime } from "../../components/relative-time";
import { Card, Detail } from "../../components/ui";
import { formatBytes, formatLatency } from "../../lib/format";
import type { EventPageData } from "./event-data.server";

/** Where the event came from and went (every destination it was sent to), its size, sender and id. */
export function DetailsCard({ event }: { event: EventPageData["event"] }) {
  const receivedAt = useExactTime(event.receivedAt);
  const routed = event.deliveries.filter((delivery) => delivery.status !== "filtered");
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
          ) : routed.length > 0 ? (
            <ForwardedTo destinations={routed} path={event.path} query={event.query} />
          ) : event.deliveries.length > 0 ? (
            <span className="muted">Not forwarded: no destination’s filter matched it</span>
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
