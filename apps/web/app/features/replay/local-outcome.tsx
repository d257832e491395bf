import { Link } from "@remix-run/react";
import { corsFixes, outcomeExplanation, outcomeHeadline, wasSent } from "@rehook/core/browser";
import { useHydrated } from "../../components/hooks";
import { Icon } from "../../components/ui";
import { withoutCors } from "../../lib/local-replay";
import { ReplayOutcome } from "./replay-outcome";
import { LISTEN_WAIT_SECONDS, type LocalSend } from "./send-local-replay";

/** A link to the recorded attempt. */
function AttemptLink({ id }: { id: string }) {
  return (
    <Link to={`/replays/${id}`} className="text-link">
      Open the recorded attempt <Icon name="arrow-right" />
    </Link>
  );
}

/** A problem with a Local replay: what happened in a line, then why and what to do. */
function Problem({ tone, headline, children }: { tone: "error" | "warning"; headline: string; children: React.ReactNode }) {
  return (
    <div className={`banner banner-${tone} local-problem`} role="alert">
      <div className="banner-body">
        <span className="banner-title" data-testid="local-headline">
          {headline}
        </span>
        {children}
      </div>
    </div>
  );
}

/** How to let the dashboard's requests in, or how to do without: rehook listen. */
function CorsHelp({ dashboardOrigin }: { dashboardOrigin: string }) {
  return (
    <details className="local-fixes" open>
      <summary>Allow {dashboardOrigin} on your local server (one line in most frameworks)</summary>
      <dl>
        {corsFixes(dashboardOrigin).map(({ framework, fix }) => (
          <div key={framework}>
            <dt>{framework}</dt>
            <dd>
              <code className="mono break">{fix}</code>
            </dd>
          </div>
        ))}
      </dl>
      <p className="muted small">
        Or run <code className="mono">rehook listen --endpoint &lt;slug&gt; --forward http://localhost:PORT</code>: while it runs, Local replays go through it,
        byte for byte, and need no CORS.
      </p>
    </details>
  );
}

/** What a Local replay did, in the replay dialog: through rehook listen, or from this browser (and why it failed, if it did). */
export function LocalOutcome({ send, busy, onSendWithoutCors }: { send: LocalSend; busy: boolean; onSendWithoutCors: () => void }) {
  const hydrated = useHydrated();
  const dashboardOrigin = hydrated ? window.location.origin : "this dashboard";
  if (send.route === "listen") {
    const attempt = send.attempt;
    return (
      <div className="local-outcome" data-testid="local-outcome" data-route="listen" data-sent={attempt ? (attempt.responseStatus === null ? "no" : "yes") : "unknown"}>
        {attempt === null ? (
          <Problem tone="warning" headline={`Sent to your rehook listen, which reported nothing within ${LISTEN_WAIT_SECONDS} s.`}>
            <span>Check that it is still running: its terminal shows each replay it forwards. If it sends this one later, the attempt appears in the history.</span>
          </Problem>
        ) : attempt.responseStatus === null ? (
          <Problem tone="error" headline="Your rehook listen could not deliver it.">
            <span className="mono break">{attempt.error}</span>
            <AttemptLink id={attempt.id} />
          </Problem>
        ) : (
          <>
            <p className="muted small local-route">Sent by your rehook listen, byte for byte, to its local server.</p>
            <ReplayOutcome attempt={attempt} />
          </>
        )}
      </div>
    );
  }
  const { result, attempt, request } = send;
  const { outcome } = result;
  const origin = new URL(result.url).origin;
  const sent = wasSent(outcome);
  const plain = outcome.kind === "preflight_refused" ? withoutCors(request) : null;
  return (
    <div className="local-outcome" data-testid="local-outcome" data-route="browser" data-kind={outcome.kind} data-sent={sent}>
      {outcome.kind === "answered" ? (
        <>
          <p className="muted small local-route">Sent from this browser (no rehook listen of yours is connected for this endpoint).</p>
          <ReplayOutcome attempt={attempt} />
        </>
      ) : (
        <Problem tone={sent === "no" ? "error" : "warning"} headline={outcomeHeadline(outcome, origin)}>
          <span>{outcomeExplanation(outcome, { origin, method: request.method.toUpperCase() }, dashboardOrigin)}</span>
          {outcome.kind === "preflight_refused" || outcome.kind === "answer_hidden" ? <CorsHelp dashboardOrigin={dashboardOrigin} /> : null}
          {outcome.kind === "nothing_listening" ? (
            <span>
              Or run <code className="mono">rehook listen</code> for this endpoint: Local replays then go through it.
            </span>
          ) : null}
          {plain ? (
            <span className="local-no-cors">
              <button type="button" className="button secondary small" disabled={busy} onClick={onSendWithoutCors}>
                Send without CORS
              </button>{" "}
              <span className="muted small">
                The body goes as captured{plain.dropped.length > 0 ? <>, without {plain.dropped.join(", ")}</> : null}; the answer cannot be read here.
              </span>
            </span>
          ) : null}
          <AttemptLink id={attempt.id} />
        </Problem>
      )}
    </div>
  );
}
