import { Link } from "@remix-run/react";

/** Why a duplicate went nowhere, and the event it repeats (the one that was forwarded, if any). */
export function DuplicateNotice({ firstEventId }: { firstEventId: string }) {
  return (
    <div className="banner banner-duplicate" data-testid="duplicate-notice">
      <div className="banner-body">
        <span className="banner-title">
          Duplicate of{" "}
          <Link to={`/events/${firstEventId}`} className="mono break" data-testid="duplicate-of">
            {firstEventId}
          </Link>
        </span>
        <span>Stored and answered as usual, but not forwarded: its endpoint’s deduplication found the same key on that event, within its window.</span>
      </div>
    </div>
  );
}
