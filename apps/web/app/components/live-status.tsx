import { RelativeTime } from "./relative-time";
import "./live-status.css";

/**
 * The live feed's connection as the subscription reports it: connecting (first attempt),
 * live (the stream is open), reconnecting (it dropped and is being retried), offline (the
 * browser is offline, or retries have failed for OFFLINE_AFTER_MS).
 */
export type Connection = "connecting" | "live" | "reconnecting" | "offline";

const LABELS: Record<Connection, string> = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…", offline: "Offline" };
const TITLES: Record<Connection, string> = {
  connecting: "Opening the live connection.",
  live: "New events appear as they arrive.",
  reconnecting: "The live connection dropped; retrying. Events received meanwhile appear once it is back.",
  offline: "No live connection: check your network or the server. The feed catches up when it is back.",
};

/** The Live badge, with when the last event was received while it is not live. */
export function LiveIndicator({ state, lastEventAt }: { state: Connection; lastEventAt: Date | string | null }) {
  return (
    <span className="live-status">
      <span className={`badge live-indicator live-${state}`} data-testid="live-indicator" data-state={state} title={TITLES[state]} role="status">
        <span className="badge-dot live-dot" aria-hidden="true" />
        {LABELS[state]}
      </span>
      {state !== "live" && state !== "connecting" && lastEventAt ? (
        <span className="muted small live-last-event" data-testid="live-last-event">
          last event received <RelativeTime value={lastEventAt} />
        </span>
      ) : null}
    </span>
  );
}
