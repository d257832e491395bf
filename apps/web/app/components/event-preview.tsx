import { Link } from "@remix-run/react";
import type { RouterOutputs } from "@rehook/api";
import { useEffect, useState } from "react";
import { errorMessage } from "../lib/errors";
import { formatBytes, formatLatency, toDate } from "../lib/format";
import { trpc } from "../lib/trpc.client";
import { HttpStatus, SignatureBadge } from "./badges";
import { DeliveryDots, deliverySummary, EventStateBadge, ResumeHint } from "./delivery-states";
import { requestPath, Resolved, type FeedRow } from "./feed-row";
import { PayloadBlock } from "./payload";
import { useExactTime } from "./relative-time";
import { Detail } from "./ui";
import "./event-preview.css";

type EventDetail = RouterOutputs["events"]["get"];

/** Waits this long after the selection moves before reading the event, so j held down reads only where it stops. */
const READ_DELAY_MS = 150;

/**
 * The split view's right side: the selected row's summary at once, then its payload read
 * from the server (events.get) once the selection rests on it.
 */
export function EventPreview({ row }: { row: FeedRow | undefined }) {
  const [detail, setDetail] = useState<{ id: string; event: EventDetail } | { id: string; error: string } | null>(null);
  const id = row?.id;
  useEffect(() => {
    if (!id) return;
    let current = true;
    const timer = setTimeout(() => {
      trpc()
        .events.get.query({ id })
        .then((event) => current && setDetail({ id, event }))
        .catch((error: unknown) => current && setDetail({ id, error: errorMessage(error) }));
    }, READ_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [id]);
  const exact = useExactTime(row?.receivedAt ?? new Date(0));

  if (!row) {
    return (
      <aside className="event-preview card" aria-label="Selected event" data-testid="event-preview">
        <p className="muted">Select an event with j and k (or a click) to see it here.</p>
      </aside>
    );
  }
  const loaded = detail?.id === row.id ? detail : null;
  const summary = deliverySummary(row.deliveries);
  return (
    <aside className="event-preview card" aria-label="Selected event" data-testid="event-preview" data-event-id={row.id}>
      <header className="event-preview-head">
        <h2 className="event-preview-title">{row.eventType}</h2>
        <Link to={`/events/${row.id}`} className="button secondary small" aria-keyshortcuts="Enter" title="Open the event's page (Enter)">
          Open event
        </Link>
      </header>
      <p className="request-line mono break" data-testid="preview-request">
        <span className="method">{row.method}</span> {requestPath(row)}
      </p>
      <div className="event-preview-status">
        <EventStateBadge status={row.status} summary={summary} />
        {row.resolved ? <Resolved /> : null}
        <SignatureBadge signature={row.signature} reason={row.signatureReason} />
        {/* Several destinations answered on their own: their states stand for the answer. */}
        {row.responseStatus !== null && summary.routed <= 1 ? <HttpStatus code={row.responseStatus} /> : null}
        <DeliveryDots deliveries={row.deliveries} />
        <ResumeHint endpointId={row.endpointId} summary={summary} />
      </div>
      <dl className="kv details-grid event-preview-details">
        <Detail term="Endpoint">{row.endpointName}</Detail>
        <Detail term="Source">{row.source}</Detail>
        <Detail term="Received" suppressHydrationWarning>
          <time dateTime={toDate(row.receivedAt).toISOString()} suppressHydrationWarning>
            {exact}
          </time>
        </Detail>
        <Detail term="Size">{formatBytes(row.sizeBytes)}</Detail>
        <Detail term="Latency">{formatLatency(row.latencyMs)}</Detail>
      </dl>
      <h3 className="subheading">Payload</h3>
      {loaded && "event" in loaded ? (
        <PayloadBlock payload={loaded.event.payload} testId="preview-payload" label="Request body" />
      ) : loaded && "error" in loaded ? (
        <p className="note" role="alert">
          The payload could not be loaded: {loaded.error} Open the event to try again.
        </p>
      ) : (
        <p className="muted small">Loading the payload…</p>
      )}
    </aside>
  );
}
