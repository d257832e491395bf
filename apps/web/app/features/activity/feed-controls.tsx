import { useLoaderData } from "@remix-run/react";
import { plural } from "../../lib/format";
import { exportHref } from "../../lib/list-filter";
import type { loadActivityPage } from "./activity-data.server";
import type { Filter } from "./activity-filter";

/** Downloads of every event the current filters find (plain links: the server streams the file). */
export function ExportLinks({ filter }: { filter: Filter }) {
  const now = useLoaderData<typeof loadActivityPage>().renderedAt;
  return (
    <span className="feed-export" data-testid="feed-export">
      <a className="button secondary" href={exportHref(filter, "ndjson", now)} download title="Every event these filters find, one JSON object per line">
        Export NDJSON
      </a>
      <a className="button secondary" href={exportHref(filter, "har", now)} download title="Every event these filters find, as a HAR 1.2 file">
        Export HAR
      </a>
    </span>
  );
}

/** Pause stops applying live rows (they are kept, and counted); Resume applies them. */
export function PauseControl({ paused, heldCount, onPause, onResume }: { paused: boolean; heldCount: number; onPause: () => void; onResume: () => void }) {
  if (!paused) {
    return (
      <button type="button" className="button secondary" onClick={onPause} data-testid="feed-pause" title="Stop adding new events to the list while you read it">
        Pause
      </button>
    );
  }
  return (
    <span className="feed-paused">
      <span className="muted small" data-testid="feed-held" role="status">
        {heldCount === 0 ? "Paused: new events wait here." : `Paused: ${plural(heldCount, "new event")} waiting.`}
      </span>
      <button type="button" className="button primary" onClick={onResume} data-testid="feed-resume">
        Resume
      </button>
    </span>
  );
}
