import type { RouterOutputs } from "@rehook/api";
import { useId, useState, type ReactNode } from "react";
import { errorMessage } from "../lib/errors";
import { formatLatency } from "../lib/format";
import { trpc } from "../lib/trpc.client";
import { HttpStatus } from "./badges";
import { AttemptFact, OutcomeBadge, PAUSED_ATTEMPT_TEXT, TimeUntil } from "./delivery";
import { HeadersTable, PayloadBlock, type PayloadData } from "./payload";
import { RelativeTime, useExactTime } from "./relative-time";
import { Alert } from "./ui";
import "./attempts.css";

/** One delivery attempt as events.get lists it. */
export interface AttemptSummary {
  /** The destination it went to, as the server resolved it (null: a removed one of before routing). */
  destinationId?: string | null;
  attempt: number;
  startedAt: Date | string;
  latencyMs: number | null;
  responseStatus: number | null;
  error: string | null;
  outcome: string;
}

/** An attempt's response as events.attempt sends it, reduced to what the page shows. */
interface AttemptResponse {
  headers: Array<[string, string]>;
  payload: PayloadData | null;
  truncated: boolean;
}

type Loaded = { state: "loading" } | { state: "error"; message: string } | { state: "done"; response: AttemptResponse } | { state: "elsewhere" };

/**
 * Every delivery attempt of an event to one destination, oldest first, on a vertical line; each
 * opens its response (headers and the beginning of the body). A scheduled attempt closes the
 * line, or, while the destination is paused, the attempt that waits for it to be resumed.
 */
export function AttemptTimeline({
  eventId,
  attempts,
  nextAttemptAt,
  paused = false,
  pausedText = PAUSED_ATTEMPT_TEXT,
  label = "Delivery attempts, oldest first",
}: {
  eventId: string;
  attempts: AttemptSummary[];
  nextAttemptAt: Date | string | null;
  /** The destination is paused: the next attempt waits for Resume, not for its time. */
  paused?: boolean;
  /** What the waiting attempt says while paused. */
  pausedText?: ReactNode;
  /** The list's accessible name (several destinations: one list each). */
  label?: string;
}) {
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());
  const [loaded, setLoaded] = useState<ReadonlyMap<number, Loaded>>(() => new Map());

  function toggle(attempt: number) {
    const opening = !open.has(attempt);
    setOpen((previous) => {
      const next = new Set(previous);
      if (opening) next.add(attempt);
      else next.delete(attempt);
      return next;
    });
    const current = loaded.get(attempt);
    if (!opening || current?.state === "done" || current?.state === "loading") return;
    const put = (state: Loaded) => setLoaded((previous) => new Map(previous).set(attempt, state));
    put({ state: "loading" });
    // Each destination counts its attempts from 1: the attempt is asked for by its destination and
    // number. One whose destination is unknown is asked for by number, and another destination's
    // answer is not shown as this one's.
    const expected = attempts.find((candidate) => candidate.attempt === attempt)?.destinationId;
    trpc()
      .events.attempt.query({ eventId, attempt, ...(typeof expected === "string" ? { destinationId: expected } : {}) })
      .then((detail) =>
        put(typeof expected === "string" && detail.destinationId !== expected ? { state: "elsewhere" } : { state: "done", response: toResponse(detail) }),
      )
      .catch((error: unknown) => put({ state: "error", message: errorMessage(error) }));
  }

  return (
    <ol className="attempt-timeline" aria-label={label}>
      {attempts.map((attempt) => (
        <AttemptItem key={attempt.attempt} attempt={attempt} open={open.has(attempt.attempt)} loaded={loaded.get(attempt.attempt)} onToggle={() => toggle(attempt.attempt)} />
      ))}
      {nextAttemptAt || paused ? (
        <li className="attempt is-scheduled" data-testid="attempt-scheduled">
          <span className="attempt-marker" aria-hidden="true" />
          <div className="attempt-main">
            <div className="attempt-head">
              <span className="attempt-number">Attempt {(attempts.at(-1)?.attempt ?? 0) + 1}</span>
              <span className="attempt-facts">
                <span data-testid="next-attempt">
                  {paused || !nextAttemptAt ? (
                    pausedText
                  ) : (
                    <>
                      Scheduled <TimeUntil value={nextAttemptAt} />
                    </>
                  )}
                </span>
              </span>
            </div>
          </div>
        </li>
      ) : null}
    </ol>
  );
}

function AttemptItem({ attempt, open, loaded, onToggle }: { attempt: AttemptSummary; open: boolean; loaded: Loaded | undefined; onToggle: () => void }) {
  const panelId = useId();
  const exact = useExactTime(attempt.startedAt);
  const tone = attempt.outcome === "delivered" ? "ok" : "fail";
  return (
    <li className={`attempt is-${tone}`} data-testid="attempt-row" data-attempt={attempt.attempt} data-outcome={attempt.outcome}>
      <span className="attempt-marker" aria-hidden="true" />
      <div className="attempt-main">
        <div className="attempt-head">
          <span className="attempt-number">Attempt {attempt.attempt}</span>
          <span className="attempt-facts">
            <span title={exact} suppressHydrationWarning>
              <RelativeTime value={attempt.startedAt} />
            </span>
            <AttemptFact label="Latency">{formatLatency(attempt.latencyMs)}</AttemptFact>
            {attempt.responseStatus !== null ? <HttpStatus code={attempt.responseStatus} /> : null}
            <OutcomeBadge outcome={attempt.outcome} />
          </span>
          <button type="button" className="button ghost small attempt-toggle" aria-expanded={open} aria-controls={panelId} onClick={onToggle}>
            <span className={`chevron${open ? " is-open" : ""}`} aria-hidden="true" />
            {open ? "Hide response" : "View response"}
            <span className="sr-only"> of attempt {attempt.attempt}</span>
          </button>
        </div>
        {attempt.error ? (
          <p className="attempt-error" data-testid="attempt-error">
            {attempt.error}
          </p>
        ) : null}
        <div id={panelId} className="attempt-panel" hidden={!open} data-testid="attempt-response">
          {open ? <AttemptPanel loaded={loaded} attempt={attempt} /> : null}
        </div>
      </div>
    </li>
  );
}

function AttemptPanel({ loaded, attempt }: { loaded: Loaded | undefined; attempt: AttemptSummary }) {
  if (!loaded || loaded.state === "loading") {
    return (
      <p className="attempt-loading muted small">
        <span className="spinner spinner-small" aria-hidden="true" /> Loading the response…
      </p>
    );
  }
  if (loaded.state === "error") {
    return (
      <Alert tone="error" role="alert">
        Could not load this attempt: {loaded.message}
      </Alert>
    );
  }
  if (loaded.state === "elsewhere") {
    return (
      <p className="muted small" data-testid="attempt-response-elsewhere">
        This attempt’s response cannot be shown here: another destination has an attempt with the same number.{" "}
        {attempt.responseStatus !== null ? `It answered HTTP ${attempt.responseStatus}.` : attempt.error ? `It failed: ${attempt.error}.` : ""}
      </p>
    );
  }
  const { response } = loaded;
  if (attempt.responseStatus === null && response.headers.length === 0 && !response.payload) {
    return <p className="muted small">No response: {attempt.error ?? "the destination did not answer"}.</p>;
  }
  return (
    <div className="response">
      <h4 className="subheading">Response headers</h4>
      <HeadersTable headers={response.headers} testId="attempt-header-row" caption={`Response headers of attempt ${attempt.attempt}`} />
      <h4 className="subheading">Response body</h4>
      {response.payload ? <PayloadBlock payload={response.payload} testId="attempt-body" label={`Response body of attempt ${attempt.attempt}`} /> : <p className="muted small">The destination sent no body.</p>}
      {response.truncated ? <p className="note">Only the beginning of this response body was kept.</p> : null}
    </div>
  );
}

/** events.attempt's answer reduced to what the panel shows. */
function toResponse(detail: RouterOutputs["events"]["attempt"]): AttemptResponse {
  return {
    headers: detail.responseHeaders ?? [],
    payload: detail.payload ? slimPayload(detail.payload) : null,
    truncated: detail.bodyTruncated,
  };
}

function slimPayload(payload: RouterOutputs["events"]["attempt"]["payload"] & {}): PayloadData {
  if (payload.kind === "json") return { kind: "json", pretty: payload.pretty };
  if (payload.kind === "text") return { kind: "text", text: payload.text };
  return { kind: "binary", hex: payload.hex, size: payload.size };
}
