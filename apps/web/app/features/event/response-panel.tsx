import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { HttpStatus } from "../../components/badges";
import { PAUSED_ATTEMPT_TEXT, TimeUntil } from "../../components/delivery";
import { ForwardedTo } from "../../components/forwarded-to";
import { HeadersTable, PayloadBlock } from "../../components/payload";
import { RelativeTime } from "../../components/relative-time";
import { Alert, Icon } from "../../components/ui";
import { formatLatency } from "../../lib/format";
import type { EventPageData } from "./event-data.server";

/** The Response tab: the destination's answer, or why there is none (yet). */
export function ResponsePanel({
  event,
  response,
  nextAttemptAt,
  forwardingPaused = false,
}: {
  event: EventPageData["event"];
  response: EventPageData["response"];
  nextAttemptAt: EventPageData["event"]["nextAttemptAt"];
  forwardingPaused?: boolean;
}) {
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
        {event.destinationUrl ? (
          <p className="muted small">
            Forwarded to <ForwardedTo destinationUrl={event.destinationUrl} target={event.forwardTarget} className="mono break fg" />
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
  if (event.status === "pending" && nextAttemptAt && forwardingPaused) {
    return (
      <PanelEmpty icon={<Icon name="bell" />} title="Forwarding paused">
        {attempts.length > 0 ? `Attempt ${attempts.at(-1)!.attempt} failed. ` : null}
        {PAUSED_ATTEMPT_TEXT}; each attempt’s response is under Delivery attempts.
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
        Rehook is forwarding this event{event.destinationUrl ? <> to <span className="mono break">{event.destinationUrl}</span></> : null}. This page updates
        when it answers.
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
