import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useMemo } from "react";
import { HttpStatus, StatusBadge } from "../components/badges";
import { CopyButton } from "../components/copy-button";
import { HeadersTable, PayloadBlock, payloadText } from "../components/payload";
import { RelativeTime, useExactTime } from "../components/relative-time";
import { EditedBadge, EnvironmentChip } from "../features/replay/replay-table";
import { Alert, Breadcrumb, Card, Detail, Icon, PageHeader, RouteError } from "../components/ui";
import { throwIfNotFound } from "../lib/errors";
import { formatLatency, isUuid } from "../lib/format";
import { base64Bytes, environmentLabel, payloadOf } from "../lib/replay";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Replay of ${data.event?.eventType ?? "an event"} · Replays · Rehook` : "Replay · Rehook" },
];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  if (!isUuid(id)) throw new Response("Not found", { status: 404 });
  let attempt;
  try {
    attempt = await context.caller.replays.get({ id });
  } catch (error) {
    throwIfNotFound(error);
    throw error;
  }
  // The body travels once, as base64: the page decodes it and picks JSON, text or hex.
  const { responseBody: _text, ...rest } = attempt;
  const [event, responses] = await Promise.all([
    context.caller.events
      .get({ id: attempt.eventId })
      .then((found) => ({ eventType: found.eventType, method: found.method, endpointId: found.endpointId, endpointName: found.endpointName }))
      .catch(() => null),
    context.caller.events.responses({ id: attempt.eventId }).catch(() => []),
  ]);
  // "Compare with the original" sets the last delivery attempt against this replay: to the
  // destination the replay went to when it went to one of them, else the event's last attempt.
  const replayedTo = responses.find((option) => option.ref === `replay:${attempt.id}`)?.destination;
  const deliveries = responses.filter((option) => option.kind === "delivery");
  const sameDestination =
    replayedTo?.kind === "destination" && replayedTo.destinationId !== null
      ? deliveries.filter((option) => option.destination.kind === "destination" && option.destination.destinationId === replayedTo.destinationId)
      : [];
  const original = (sameDestination.length > 0 ? sameDestination : deliveries).at(-1)?.ref ?? null;
  return { attempt: rest, event: event && { ...event, original } };
}

export default function ReplayAttemptPage() {
  const { attempt, event } = useLoaderData<typeof loader>();
  const replayedAt = useExactTime(attempt.replayedAt);
  const body = useMemo(() => (attempt.responseBodyBase64 === null ? null : payloadOf(base64Bytes(attempt.responseBodyBase64))), [attempt.responseBodyBase64]);
  const headers = attempt.responseHeaders;
  const sentBody = useMemo(() => (attempt.requestBodyBase64 === null ? null : payloadOf(base64Bytes(attempt.requestBodyBase64))), [attempt.requestBodyBase64]);
  const eventType = event?.eventType ?? "event";

  return (
    <>
      <PageHeader
        eyebrow={<Breadcrumb parent="Replays" to="/replays" current={attempt.id.slice(-12)} currentClassName="mono" />}
        title={
          <>
            Replay of <span className={`break${eventType === "unknown" ? " is-unknown-type" : ""}`}>{eventType}</span>
          </>
        }
        beside={
          <>
            <StatusBadge status={attempt.status} />
            {attempt.modified ? <EditedBadge /> : null}
          </>
        }
        description={
          <span className="header-meta">
            <EnvironmentChip environment={attempt.environment} />
            <span className="mono request-line">
              {attempt.requestMethod ? <span className="method">{attempt.requestMethod}</span> : event ? <span className="method">{event.method}</span> : null}{" "}
              <span className="break">{attempt.destinationUrl}</span>
            </span>
            <span>
              Replayed <RelativeTime value={attempt.replayedAt} />
            </span>
          </span>
        }
        actions={
          <>
            {event?.original ? (
              <Link
                to={`/events/${attempt.eventId}/compare?left=${event.original}&right=replay:${attempt.id}`}
                className="button secondary"
              >
                Compare with the original
              </Link>
            ) : null}
            <Link to={`/events/${attempt.eventId}`} className="button secondary">
              <Icon name="arrow-right" />
              Open the event
            </Link>
          </>
        }
      />

      <Card title="Details">
        <dl className="kv details-grid">
          <Detail term="Event">
            <Link to={`/events/${attempt.eventId}`} className="break">
              {eventType}
            </Link>
          </Detail>
          <Detail term="Endpoint">{event ? <Link to={`/endpoints/${event.endpointId}`}>{event.endpointName}</Link> : <span className="muted">unknown</span>}</Detail>
          <Detail term="Environment">{environmentLabel(attempt.environment)}</Detail>
          <Detail term="Replayed" suppressHydrationWarning>
            {replayedAt}
          </Detail>
          <Detail term="Target URL" wide>
            <span className="mono break" data-testid="replay-destination">
              {attempt.destinationUrl}
            </span>
          </Detail>
          <Detail term="Response">{attempt.responseStatus !== null ? <HttpStatus code={attempt.responseStatus} /> : <span className="muted">No response</span>}</Detail>
          <Detail term="Latency">{formatLatency(attempt.latencyMs)}</Detail>
          <Detail term="Attempt ID" wide className="mono break">
            {attempt.id}
          </Detail>
        </dl>
      </Card>

      {attempt.requestHeaders ? (
        <Card title={attempt.modified ? "Request sent (edited)" : "Request sent"} className="replay-request">
          <h3 className="subheading">Headers sent</h3>
          <HeadersTable headers={attempt.requestHeaders} testId="request-header-row" caption="Request headers sent" />
          <h3 className="subheading">Body sent</h3>
          {sentBody ? (
            <PayloadBlock payload={sentBody} testId="request-body" label="Body sent" />
          ) : attempt.modified ? (
            <p className="muted">The event's own body bytes.</p>
          ) : (
            <p className="muted">The event's own body bytes, unchanged.</p>
          )}
        </Card>
      ) : null}

      <Card
        title="Response"
        actions={body ? <CopyButton text={payloadText(body)} label="Copy body" /> : undefined}
        className="replay-response"
      >
        <div className="response">
          <div className="response-summary">
            <HttpStatus code={attempt.responseStatus} />
            <span className="muted">
              Latency <strong className="fg">{formatLatency(attempt.latencyMs)}</strong>
            </span>
          </div>
          {attempt.error ? (
            <Alert tone="error" testId="replay-error">
              {attempt.error}
            </Alert>
          ) : null}
          <h3 className="subheading">Response headers</h3>
          {headers ? (
            <HeadersTable headers={headers} testId="response-header-row" caption="Response headers" />
          ) : (
            <p className="muted">
              {attempt.environment === "local"
                ? "Not recorded: a local replay keeps only the status and body this browser could read."
                : "None: the target did not answer."}
            </p>
          )}
          <h3 className="subheading">Response body</h3>
          {body ? <PayloadBlock payload={body} testId="response-body" label="Response body" /> : <p className="muted">The target sent no body.</p>}
          {attempt.responseTruncated ? <p className="note">The response body was truncated: only its beginning was stored.</p> : null}
        </div>
      </Card>
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
