import { Card, CopyField, Detail, TestEventSnippet } from "../../components/ui";
import { keptForText } from "../../lib/format";
import type { EndpointPageData } from "./endpoint-data.server";

/** Side by side: the capture URL (what it accepts, where it forwards) and a curl command to try it. */
export function CaptureCards({ endpoint }: { endpoint: EndpointPageData["endpoint"] }) {
  return (
    <div className="grid-2">
      <Card
        title="Capture URL"
        description={
          endpoint.destinationUrl ? (
            <>Requests sent here are stored and forwarded to your destination.</>
          ) : (
            <>Requests sent here are stored so you can inspect them. Add a destination URL to forward them.</>
          )
        }
      >
        <CopyField value={endpoint.webhookUrl} testId="capture-url" />
        <dl className="kv compact">
          <Detail term="Forwards to">
            {endpoint.destinationUrl ? <span className="mono break">{endpoint.destinationUrl}</span> : <span className="muted">Capture only</span>}
            {endpoint.destinationCount > 1 ? (
              <>
                {" "}
                <a href="#destinations" className="muted" data-testid="more-destinations">
                  and {endpoint.destinationCount - 1} more
                </a>
              </>
            ) : null}
          </Detail>
          <Detail term="Accepts" className="muted">
            Any method, and any path below the URL (…/{endpoint.slug}/orders/42 too)
          </Detail>
          <Detail term="Events" className="muted">
            <span data-testid="kept-for">{keptForText(endpoint.keptForDays)}</span>
          </Detail>
        </dl>
      </Card>

      <Card title="Send a test event" description="Run this in a terminal, then watch the event arrive in Activity.">
        <TestEventSnippet webhookUrl={endpoint.webhookUrl} />
      </Card>
    </div>
  );
}
