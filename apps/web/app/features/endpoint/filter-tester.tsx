import type { RouterOutputs } from "@rehook/api";
import { useEffect, useState } from "react";
import { Badge } from "../../components/badges";
import { requestPath } from "../../components/feed-row";
import { useNow } from "../../components/hooks";
import { Alert } from "../../components/ui";
import { parseFilterText } from "../../lib/destinations";
import { errorMessage } from "../../lib/errors";
import { relativeTime, toDate } from "../../lib/format";
import { trpc } from "../../lib/trpc.client";

/** Recent events the tester offers to run a filter against. */
export const TESTER_EVENTS = 20;

type EventSummary = RouterOutputs["events"]["list"]["events"][number];
type Loaded = { state: "loading" } | { state: "error"; message: string } | { state: "done"; events: EventSummary[] };
type Outcome = { state: "idle" } | { state: "running" } | { state: "done"; matches: boolean; workBudgetExceeded: boolean } | { state: "error"; message: string };

/**
 * "Test this filter": one of the endpoint's recent events, and whether the filter being edited
 * lets it through (destinations.testFilter, by routes/endpoints.$id.filter-test.tsx; nothing is
 * saved or sent). The events are read in the browser when the editor opens, so their ages are
 * the viewer's.
 */
export function FilterTester({ endpointId, filter, idPrefix }: { endpointId: string; filter: string; idPrefix: string }) {
  const [loaded, setLoaded] = useState<Loaded>({ state: "loading" });
  const [eventId, setEventId] = useState("");
  const [outcome, setOutcome] = useState<Outcome>({ state: "idle" });
  const now = useNow();

  useEffect(() => {
    let current = true;
    trpc()
      .events.list.query({ endpointId, limit: TESTER_EVENTS })
      .then((page) => {
        if (!current) return;
        setLoaded({ state: "done", events: page.events });
        setEventId((chosen) => chosen || (page.events[0]?.id ?? ""));
      })
      .catch((error: unknown) => current && setLoaded({ state: "error", message: errorMessage(error) }));
    return () => {
      current = false;
    };
  }, [endpointId]);

  // An answer is about the filter and the event it was asked for: a change makes it stale.
  useEffect(() => setOutcome({ state: "idle" }), [filter, eventId]);

  async function run() {
    const parsed = parseFilterText(filter);
    if (!parsed.ok) {
      setOutcome({ state: "error", message: parsed.error });
      return;
    }
    setOutcome({ state: "running" });
    try {
      // The route answers 200 with the refusal too: a filter being typed is not a failed request.
      const response = await fetch(`/endpoints/${encodeURIComponent(endpointId)}/filter-test`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ eventId, filter: parsed.filter }),
      });
      const answer = (await response.json()) as { ok: true; matches: boolean; workBudgetExceeded: boolean } | { ok: false; error: string };
      setOutcome(answer.ok ? { state: "done", matches: answer.matches, workBudgetExceeded: answer.workBudgetExceeded } : { state: "error", message: answer.error });
    } catch {
      setOutcome({ state: "error", message: "The test could not be run: check your connection and try again." });
    }
  }

  const selectId = `${idPrefix}-test-event`;
  const events = loaded.state === "done" ? loaded.events : [];
  return (
    <div className="filter-tester field-box" data-testid="filter-tester">
      <div className="field">
        <label htmlFor={selectId}>Test this filter</label>
        <div className="filter-tester-row">
          <select
            id={selectId}
            value={eventId}
            onChange={(event) => setEventId(event.target.value)}
            disabled={events.length === 0}
            aria-describedby={`${selectId}-hint`}
          >
            {loaded.state === "loading" ? <option value="">Loading recent events…</option> : null}
            {loaded.state !== "loading" && events.length === 0 ? <option value="">No events yet</option> : null}
            {events.map((event) => (
              <option key={event.id} value={event.id}>
                {`${event.method} ${requestPath(event)} · ${event.eventType} · ${relativeTime(toDate(event.receivedAt), now)}`}
              </option>
            ))}
          </select>
          <button type="button" className="button secondary" onClick={() => void run()} disabled={!eventId || outcome.state === "running"}>
            {outcome.state === "running" ? "Testing…" : "Test filter"}
          </button>
        </div>
        <small id={`${selectId}-hint`} className="hint">
          {loaded.state === "error"
            ? `The recent events could not be loaded: ${loaded.message}`
            : events.length === 0 && loaded.state === "done"
              ? "Capture an event to test the filter against it."
              : `Runs the filter above against one of the ${TESTER_EVENTS} newest events. Nothing is saved or sent.`}
        </small>
      </div>
      <div className="filter-tester-outcome" aria-live="polite" data-testid="filter-test-outcome">
        {outcome.state === "done" ? (
          <Badge tone={outcome.matches ? "delivered" : "neutral"} data-matches={String(outcome.matches)}>
            {outcome.matches ? "Matches" : outcome.workBudgetExceeded ? "Does not match: filter work budget exceeded" : "Does not match"}
          </Badge>
        ) : null}
        {outcome.state === "error" ? (
          <Alert tone="error" role="alert" testId="filter-test-error">
            {outcome.message}
          </Alert>
        ) : null}
      </div>
    </div>
  );
}
