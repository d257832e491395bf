import { formatPercent, HEALTH_LABELS, isEventStatus, STATUS_LABELS, type HealthState } from "../lib/format";

/** An event's status: a coloured dot and the word, never colour alone. */
export function StatusBadge({ status, title }: { status: string; title?: string }) {
  const known = isEventStatus(status);
  return (
    <span className={`badge badge-${known ? status : "neutral"}`} title={title}>
      <span className="badge-dot" aria-hidden="true" />
      {known ? STATUS_LABELS[status] : status}
    </span>
  );
}

/** An endpoint's health with its success rate ("Healthy · 98%"), or "Capturing". */
export function HealthBadge({ state, rate }: { state: HealthState; rate: number | null }) {
  const showRate = state !== "capturing" && rate !== null;
  return (
    <span
      className={`badge badge-health-${state}`}
      data-health={state}
      title={showRate ? `${formatPercent(rate)} of finished deliveries succeeded` : "No deliveries yet: events are only captured"}
    >
      <span className="badge-dot" aria-hidden="true" />
      {HEALTH_LABELS[state]}
      {showRate ? <span className="badge-extra"> · {formatPercent(rate)}</span> : null}
    </span>
  );
}

/** An HTTP status code, green for 2xx, amber for 3xx, red otherwise. */
export function HttpStatus({ code }: { code: number | null }) {
  if (code === null) return <span className="badge badge-failed">No response</span>;
  const tone = code >= 200 && code < 300 ? "ok" : code >= 300 && code < 400 ? "warn" : "fail";
  const word = tone === "ok" ? "OK" : tone === "warn" ? "Redirect" : "Error";
  return (
    <span className={`badge badge-http-${tone}`} data-http-status={code}>
      <span className="badge-dot" aria-hidden="true" />
      {code} <span className="badge-extra">{word}</span>
    </span>
  );
}
