import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useRevalidator } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { AttemptTimeline } from "../components/attempts";
import { HttpStatus, SignatureBadge, StatusBadge } from "../components/badges";
import { httpTone } from "@rehook/core/browser";
import { CopyButton } from "../components/copy-button";
import { ResolvedByReplay } from "../components/feed-row";
import { ForwardedTo } from "../components/forwarded-to";
import { DeleteEventButton } from "../components/delete-event";
import { TimeUntil } from "../components/delivery";
import { CopyPayloadButton, curlFromBody, curlInBody, PayloadInspector } from "../components/inspector/payload-inspector";
import { HeadersTable, PayloadBlock, type PayloadData } from "../components/payload";
import { RelativeTime, useExactTime } from "../components/relative-time";
import { ReplayDialog, ReplayTable } from "../components/replays";
import { Tabs } from "../components/tabs";
import { Alert, Breadcrumb, Card, Detail, Icon, PageHeader, RouteError } from "../components/ui";
import { errorMessage, throwIfNotFound } from "../lib/errors";
import { formatBytes, formatLatency } from "../lib/format";
import { replayHints, type ReplayRow } from "../lib/replay";
import { trpc } from "../lib/trpc.client";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.event.eventType} · Activity · Rehook` : "Event · Rehook" }];

/** The server's PayloadView without the parsed value (the page only needs the text). */
function slim(payload: { kind: "json"; pretty: string } | { kind: "text"; text: string } | { kind: "binary"; hex: string; size: number }): PayloadData {
  if (payload.kind === "json") return { kind: "json", pretty: payload.pretty };
  if (payload.kind === "text") return { kind: "text", text: payload.text };
  return { kind: "binary", hex: payload.hex, size: payload.size };
}

/** The replay history shows this many attempts; the Replays page has them all. */
const HISTORY_LIMIT = 20;

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  let event;
  try {
    event = await context.caller.events.get({ id: params.id ?? "" });
  } catch (error) {
    throwIfNotFound(error);
    throw error;
  }
  // The request body travels once, as `body` (the inspector's view); `payload` is left out.
  const { payload: _payload, body, response, ...rest } = event;
  // The endpoint as it is now: replays go to its current destination and staging host.
  const [endpoint, history] = await Promise.all([
    context.caller.endpoints.get({ id: event.endpointId }).catch(() => null),
    context.caller.replays.list({ eventId: event.id, limit: HISTORY_LIMIT }).catch(() => ({ replays: [], nextCursor: null })),
  ]);
  return {
    // A whole text body is in `body` already: the page builds the curl command from it instead.
    event: { ...rest, curl: curlInBody(rest.bodyTruncated, body) ? null : rest.curl },
    /** Forwarding to its endpoint is paused: attempts (Retry now too) wait until it is resumed. */
    forwardingPaused: endpoint?.forwardingPaused ?? false,
    replayHints: replayHints({
      destinationUrl: endpoint?.destination_url ?? null,
      stagingHost: endpoint?.staging_host ?? null,
      path: event.path,
      query: event.query,
    }),
    history: history.replays,
    moreHistory: history.nextCursor !== null,
    body,
    requestPath: `/api/webhook/${event.endpointSlug}${event.path}${event.query ? `?${event.query}` : ""}`,
    response: response && {
      status: response.status,
      headers: response.headers,
      truncated: response.truncated,
      latencyMs: response.latencyMs,
      error: response.error,
      payload: response.payload ? slim(response.payload) : null,
    },
  };
}

export default function EventPage() {
  const { event, body, requestPath, response, replayHints, forwardingPaused, history: loadedHistory, moreHistory: loadedMore } = useLoaderData<typeof loader>();
  const revalidator = useRevalidator();
  const receivedAt = useExactTime(event.receivedAt);
  const waiting = event.status === "pending";
  const revalidateRef = useRef(revalidator.revalidate);
  revalidateRef.current = revalidator.revalidate;
  const reloading = useRef(false);
  const reloadAgain = useRef(false);
  // One reload at a time: a second one would abort the first (an AbortError nobody handles).
  // A request for a reload meanwhile is remembered and runs when the first is done.
  const revalidate = useRef(() => {
    if (reloading.current) {
      reloadAgain.current = true;
      return;
    }
    reloading.current = true;
    void Promise.resolve(revalidateRef.current())
      .catch(() => undefined)
      .finally(() => {
        reloading.current = false;
        if (!reloadAgain.current) return;
        reloadAgain.current = false;
        revalidate.current();
      });
  });
  const attempts = event.attempts;
  const nextAttemptAt = waiting ? event.nextAttemptAt : null;
  const canRetry = (event.status === "pending" || event.status === "failed") && event.destinationUrl !== null;
  const [retry, setRetry] = useState<{ state: "idle" | "sending" | "sent" } | { state: "error"; message: string }>({ state: "idle" });

  async function retryNow() {
    setRetry({ state: "sending" });
    try {
      await trpc().events.retry.mutate({ id: event.id });
      setRetry({ state: "sent" });
      revalidate.current();
    } catch (error) {
      setRetry({ state: "error", message: errorMessage(error) });
    }
  }

  // A scheduled attempt: look again shortly after it is due (the live feed reports the result too).
  const nextAt = nextAttemptAt ? new Date(nextAttemptAt).getTime() : null;
  useEffect(() => {
    if (nextAt === null) return;
    const wait = Math.min(Math.max(nextAt - Date.now(), 0) + 1500, 2_147_000_000);
    const timer = setTimeout(() => revalidate.current(), wait);
    return () => clearTimeout(timer);
  }, [nextAt]);

  // A pending event: reload when its delivery finishes, or an attempt changes it.
  useEffect(() => {
    if (!waiting) return;
    let checked = false;
    const subscription = trpc().events.live.subscribe(
      { endpointId: event.endpointId },
      {
        onStarted() {
          // The delivery may have finished between the page load and the subscription.
          if (!checked) {
            checked = true;
            revalidate.current();
          }
        },
        onData(rows) {
          if (rows.some((row) => row.id === event.id)) revalidate.current();
        },
      },
    );
    return () => subscription.unsubscribe();
  }, [waiting, event.id, event.endpointId]);

  const [replaying, setReplaying] = useState(false);
  const [history, setHistory] = useState<{ rows: ReplayRow[]; more: boolean }>({ rows: loadedHistory, more: loadedMore });
  useEffect(() => setHistory({ rows: loadedHistory, more: loadedMore }), [loadedHistory, loadedMore]);
  const refreshHistory = useCallback(() => {
    trpc()
      .replays.list.query({ eventId: event.id, limit: HISTORY_LIMIT })
      .then((page) => setHistory({ rows: page.replays, more: page.nextCursor !== null }))
      .catch(() => {});
  }, [event.id]);

  // R opens the replay dialog, unless the user is typing or holds a modifier.
  useEffect(() => {
    function onKeyDown(keyEvent: KeyboardEvent) {
      if (keyEvent.key !== "r" && keyEvent.key !== "R") return;
      if (keyEvent.defaultPrevented || keyEvent.repeat || keyEvent.ctrlKey || keyEvent.metaKey || keyEvent.altKey || keyEvent.shiftKey) return;
      const target = keyEvent.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable]:not([contenteditable='false'])")) return;
      if (document.querySelector("dialog[open]")) return;
      keyEvent.preventDefault();
      setReplaying(true);
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, []);

  const responseHeaders = response?.headers ?? [];

  return (
    <>
      <PageHeader
        eyebrow={<Breadcrumb parent="Activity" to="/events" current={event.id.slice(-12)} currentClassName="mono" />}
        title={<span className={`break${event.eventType === "unknown" ? " is-unknown-type" : ""}`}>{event.eventType}</span>}
        beside={
          <>
            <StatusBadge status={event.status} />
            {event.resolvedByReplay ? <ResolvedByReplay /> : null}
            <SignatureBadge signature={event.signature} />
          </>
        }
        description={
          <span className="header-meta">
            <span className="source-chip" title="Detected sender">
              {event.source}
            </span>
            <span className="mono request-line">
              <span className="method">{event.method}</span> <span className="break">{requestPath}</span>
            </span>
            <span>
              Received <RelativeTime value={event.receivedAt} />
            </span>
            {nextAttemptAt ? (
              <span className="next-attempt-meta" data-testid="next-attempt-header">
                Next attempt <TimeUntil value={nextAttemptAt} />
              </span>
            ) : null}
          </span>
        }
        actions={
          <>
            <CopyButton text={event.curl ?? (() => curlFromBody(event, body))} label="Copy as curl" className="button secondary" />
            <CopyPayloadButton body={body} truncated={event.bodyTruncated} previewBytes={event.bodyPreviewBytes} />
            <button type="button" className="button primary" onClick={() => setReplaying(true)} aria-keyshortcuts="R" title="Replay this event (R)">
              <Icon name="refresh" />
              Replay
              <kbd className="kbd-hint" aria-hidden="true">
                R
              </kbd>
            </button>
            {attempts.length + Math.max(event.replayCount, history.rows.length) >= 2 ? (
              <Link to={`/events/${event.id}/compare`} className="button secondary">
                Compare responses
              </Link>
            ) : null}
            <DeleteEventButton eventId={event.id} replayCount={event.replayCount} />
          </>
        }
      />

      <Card title="Details">
        <dl className="kv details-grid">
          <Detail term="Endpoint">
            <Link to={`/endpoints/${event.endpointId}`}>{event.endpointName}</Link>
          </Detail>
          <Detail term="Received" suppressHydrationWarning>
            {receivedAt}
          </Detail>
          <Detail term="Forwarded to" wide>
            {event.destinationUrl ? (
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
              extra: response?.status ?? undefined,
              extraTone: typeof response?.status === "number" ? httpTone(response.status) : undefined,
              render: () =>
                response ? (
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
                    <HeadersTable headers={responseHeaders} testId="response-header-row" caption="Response headers" />
                    <h3 className="subheading">Response body</h3>
                    {response.payload ? (
                      <PayloadBlock payload={response.payload} testId="response-body" label="Response body" />
                    ) : (
                      <p className="muted">The destination sent no body.</p>
                    )}
                    {response.truncated ? <p className="note">The response body was truncated: only its beginning was stored.</p> : null}
                  </div>
                ) : event.status === "pending" && nextAttemptAt ? (
                  <PanelEmpty icon={<span className="spinner" aria-hidden="true" />} title="Waiting to retry">
                    {attempts.length > 0 ? `Attempt ${attempts.at(-1)!.attempt} failed. ` : null}The next attempt is due <TimeUntil value={nextAttemptAt} />; each
                    attempt’s response is under Delivery attempts.
                  </PanelEmpty>
                ) : event.status === "pending" ? (
                  <PanelEmpty icon={<span className="spinner" aria-hidden="true" />} title="Waiting for the destination…">
                    Rehook is forwarding this event{event.destinationUrl ? <> to <span className="mono break">{event.destinationUrl}</span></> : null}. This page
                    updates when it answers.
                  </PanelEmpty>
                ) : (
                  <PanelEmpty icon={<Icon name="inbox" />} title="Not forwarded">
                    This event was captured only: its endpoint had no destination URL when it arrived. Add one on the{" "}
                    <Link to={`/endpoints/${event.endpointId}`}>endpoint’s page</Link> to forward new events.
                  </PanelEmpty>
                ),
            },
          ]}
        />
      </section>

      {attempts.length > 0 || canRetry || nextAttemptAt ? (
        <Card
          title={
            <>
              Delivery attempts <span className="count-pill">{attempts.length}</span>
            </>
          }
          description={
            nextAttemptAt ? (
              <span data-testid="next-attempt-line">
                Next attempt <TimeUntil value={nextAttemptAt} className="fg" />, following the endpoint’s retry policy.
              </span>
            ) : event.status === "pending" ? (
              "Forwarding now."
            ) : (
              "Each time Rehook forwarded this event to its destination, oldest first."
            )
          }
          actions={
            canRetry ? (
              <button
                type="button"
                className="button secondary"
                onClick={() => void retryNow()}
                disabled={retry.state === "sending"}
                aria-describedby={retry.state === "error" ? "retry-now-error" : undefined}
              >
                {retry.state === "sending" ? <span className="spinner spinner-small" aria-hidden="true" /> : <Icon name="refresh" />}
                {retry.state === "sending" ? "Retrying…" : "Retry now"}
              </button>
            ) : undefined
          }
          className="attempts-card"
        >
          {forwardingPaused && canRetry ? (
            <p className="note" data-testid="event-endpoint-paused">
              Forwarding to <Link to={`/endpoints/${event.endpointId}`}>{event.endpointName}</Link> is paused: this event waits, and Retry now queues it, until
              forwarding is resumed on the endpoint’s page.
            </p>
          ) : null}
          {attempts.length === 0 ? (
            <p className="muted">No attempt has finished yet.</p>
          ) : (
            <AttemptTimeline eventId={event.id} attempts={attempts} nextAttemptAt={nextAttemptAt} />
          )}
          <p className="sr-only" aria-live="polite">
            {retry.state === "sent" ? "Retry started." : ""}
          </p>
          {retry.state === "error" ? (
            <div className="recovery-result" id="retry-now-error">
              <Alert tone="error" role="alert">
                {retry.message}
              </Alert>
            </div>
          ) : null}
        </Card>
      ) : null}

      <Card
        title={
          <>
            Replay history <span className="count-pill">{history.more ? `${history.rows.length}+` : history.rows.length}</span>
          </>
        }
        description="Every time this event was sent again, newest first."
        actions={
          history.rows.length > 0 ? (
            <Link to="/replays" className="text-link">
              All replays <Icon name="arrow-right" />
            </Link>
          ) : undefined
        }
        className="replay-history"
      >
        {history.rows.length === 0 ? (
          <p className="muted">
            No replays yet. Use <strong className="fg">Replay</strong> (or press <kbd className="kbd-hint">R</kbd>) to send this event again to its destination, a staging host,
            your machine or any URL.
          </p>
        ) : (
          <div className="table-wrap">
            <ReplayTable rows={history.rows} withEvent={false} caption="Replays of this event, newest first" />
          </div>
        )}
        {history.more ? <p className="muted small list-footnote">Showing the {HISTORY_LIMIT} newest.</p> : null}
      </Card>

      <ReplayDialog open={replaying} onClose={() => setReplaying(false)} eventId={event.id} hints={replayHints} onReplayed={refreshHistory} />
    </>
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

export function ErrorBoundary() {
  return <RouteError />;
}
