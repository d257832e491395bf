import { httpTone } from "@rehook/core/browser";
import { PayloadInspector } from "../../components/inspector/payload-inspector";
import { HeadersTable } from "../../components/payload";
import { Tabs } from "../../components/tabs";
import type { EventPageData } from "./event-data.server";
import type { PausedDeliveries } from "./paused-note";
import { ResponsePanel } from "./response-panel";

/** The request's payload and headers, and the destination's response, as tabs. */
export function EventDataTabs({
  event,
  body,
  response,
  nextAttemptAt,
  paused,
}: {
  event: EventPageData["event"];
  body: EventPageData["body"];
  response: EventPageData["response"];
  nextAttemptAt: EventPageData["event"]["nextAttemptAt"];
  /** Deliveries held by a paused destination. */
  paused: PausedDeliveries;
}) {
  const several = event.deliveries.filter((delivery) => delivery.status !== "filtered").length > 1;
  return (
    <section className="card tabs-card" aria-label="Request and response">
      <Tabs
        label="Event data"
        items={[
          {
            id: "payload",
            label: "Payload",
            render: () => (
              <PayloadInspector
                body={body}
                contentType={event.contentType}
                query={event.query}
                truncated={event.bodyTruncated}
                previewBytes={event.bodyPreviewBytes}
                sizeBytes={event.sizeBytes}
                downloadUrl={`/api/events/${encodeURIComponent(event.id)}/body`}
                fileName={event.bodyFileName}
              />
            ),
          },
          {
            id: "headers",
            label: "Headers",
            extra: event.headers.length,
            render: () => <HeadersTable headers={event.headers} caption="Request headers, in the order they arrived" />,
          },
          {
            id: "response",
            label: "Response",
            // Sent to several destinations, the event has no one answer (each is under Deliveries).
            extra: several ? undefined : (response?.status ?? undefined),
            extraTone: !several && typeof response?.status === "number" ? httpTone(response.status) : undefined,
            render: () => <ResponsePanel event={event} response={response} nextAttemptAt={nextAttemptAt} paused={paused} />,
          },
        ]}
      />
    </section>
  );
}
