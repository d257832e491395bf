import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { HttpStatus } from "../../components/badges";
import { soleDelivery } from "@rehook/core/browser";
import { TimeUntil } from "../../components/delivery";
import { ForwardedTo } from "../../components/forwarded-to";
import { HeadersTable, PayloadBlock } from "../../components/payload";
import { RelativeTime } from "../../components/relative-time";
import { Alert, Icon } from "../../components/ui";
import { formatLatency } from "../../lib/format";
import type { EventPageData } from "./event-data.server";
import { PausedUntil, type PausedDeliveries } from "./paused-note";

/**
 * The Response tab: the answer of the event's one destination, or why there is none (yet). An
 * event sent to several destinations has no one answer: each is under Deliveries.
 */
export function ResponsePanel({
  event,
  response,
  nextAttemptAt,
  paused,
}: {
  event: EventPageData["event"];
  response: EventPageData["response"];
  nextAttemptAt: EventPageData["event"]["nextAttemptAt"];
  paused: PausedDeliveries;
}) {
  const routed = event.deliveries.filter((delivery) => delivery.status !== "filtered").length;
  if (routed > 1) {
    return (
      <PanelEmpty icon={<Icon name="inbox" />} title={`Sent to ${routed} destinations`}>
        Each destination answered on its own: their responses are under Deliveries, attempt by attempt.
      </PanelEmpty>
    );
  }
  const sole = soleDelivery(event.deliveries);
  if (response) {
    return (
      <div className="response">
        <div className="response-summary">
          <HttpStatus code={response.status} />
          <span className="muted">
            Latency <strong className="fg">{formatLatency(response.latencyMs)}</strong>
          </span>
          {event.completedAt ? (
            <span className="muted">
              Finished <RelativeTime value={event.completedAt} />
            </span>
          ) : null}
        </div>
        {sole?.url ? (
          <p className="muted small">
            Forwarded to <ForwardedTo destinations={[sole]} path={event.path} query={event.query} className="mono break fg" />
          </p>
        ) : null}
        {response.error ? (
          <Alert tone="error" testId="response-error">
            {response.error}
          </Alert>
        ) : null}
        <h3 className="subheading">Response headers</h3>
        <HeadersTable headers={response.headers ?? []} testId="response-header-row" caption="Response headers" />
        <h3 className="subheading">Response body</h3>
        {response.payload ? <PayloadBlock payload={response.payload} testId="response-body" label="Response body" /> : <p className="muted">The destination sent no body.</p>}
        {response.truncated ? <p className="note">The response body was truncated: only its beginning was stored.</p> : null}
      </div>
    );
  }
  if (event.duplicateOf) {
    return (
      <PanelEmpty icon={<Icon name="inbox" />} title="Not forwarded: a duplicate">
        It repeats <Link to={`/events/${event.duplicateOf}`}>an earlier event</Link>, so its endpoint’s deduplication kept it from the destination. Replay it to send it
        anyway.
      </PanelEmpty>
    );
  }
  const attempts = event.attempts;
  if (event.status === "pending" && paused.length > 0) {
    return (
      <PanelEmpty icon={<Icon name="bell" />} title="Forwarding paused">
        {attempts.length > 0 ? `Attempt ${attempts.at(-1)!.attempt} failed. ` : null}
        <PausedUntil endpointId={event.endpointId} paused={paused} />; each attempt’s response is under Delivery attempts.
      </PanelEmpty>
    );
  }
  if (event.status === "pending" && nextAttemptAt) {
    return (
      <PanelEmpty icon={<span className="spinner" aria-hidden="true" />} title="Waiting to retry">
        {attempts.length > 0 ? `Attempt ${attempts.at(-1)!.attempt} failed. ` : null}The next attempt is due <TimeUntil value={nextAttemptAt} />; each attempt’s
        response is under Delivery attempts.
      </PanelEmpty>
    );
  }
  if (event.status === "pending") {
    return (
      <PanelEmpty icon={<span className="spinner" aria-hidden="true" />} title="Waiting for the destination…">
        Rehook is forwarding this event{sole?.url ? <> to <span className="mono break">{sole.url}</span></> : null}. This page updates when it answers.
      </PanelEmpty>
    );
  }
  return (
    <PanelEmpty icon={<Icon name="inbox" />} title="Not forwarded">
      This event was captured only: its endpoint had no destination URL when it arrived. Add one on the{" "}
      <Link to={`/endpoints/${event.endpointId}`}>endpoint’s page</Link> to forward new events.
    </PanelEmpty>
  );
}

/** The Response tab when there is no response (yet). */
function PanelEmpty({ icon, title, children }: { icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <div className="panel-empty">
      {icon}
      <div>
        <p className="panel-empty-title">{title}</p>
        <p className="muted small">{children}</p>
      </div>
    </div>
  );
}
