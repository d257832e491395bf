import { Link } from "@remix-run/react";
import { Card, Icon } from "../../components/ui";
import type { ReplayRow } from "../../lib/replay";
import { ReplayTable } from "../replay/replay-table";
import { HISTORY_LIMIT } from "./history-limit";

/** The event's replays, newest first (HISTORY_LIMIT of them). */
export function ReplayHistoryCard({ rows, more }: { rows: ReplayRow[]; more: boolean }) {
  return (
    <Card
      title={
        <>
          Replay history <span className="count-pill">{more ? `${rows.length}+` : rows.length}</span>
        </>
      }
      description="Every time this event was sent again, newest first."
      actions={
        rows.length > 0 ? (
          <Link to="/replays" className="text-link">
            All replays <Icon name="arrow-right" />
          </Link>
        ) : undefined
      }
      className="replay-history"
    >
      {rows.length === 0 ? (
        <p className="muted">
          No replays yet. Use <strong className="fg">Replay</strong> (or press <kbd className="kbd-hint">R</kbd>) to send this event again to its destination, a staging host,
          your machine or any URL.
        </p>
      ) : (
        <div className="table-wrap">
          <ReplayTable rows={rows} withEvent={false} caption="Replays of this event, newest first" />
        </div>
      )}
      {more ? <p className="muted small list-footnote">Showing the {HISTORY_LIMIT} newest.</p> : null}
    </Card>
  );
}
