import { Link } from "@remix-run/react";
import { Badge, HttpStatus, StatusBadge } from "../../components/badges";
import { DataTable, EndpointCell, LatencyCell, Truncated, type Column } from "../../components/data-table";
import { useRowOpener } from "../../components/hooks";
import { RelativeTime } from "../../components/relative-time";
import { attemptDestinationLabel, replayDestination } from "@rehook/core/browser";
import { environmentLabel, type ReplayRow } from "../../lib/replay";
import "./replay-table.css";

/** A replay's target environment as a small chip ("Staging"). */
export function EnvironmentChip({ environment }: { environment: string }) {
  return <span className={`chip env-chip env-${environment}`}>{environmentLabel(environment)}</span>;
}

/** Marks an attempt sent with edits (edit-and-replay). */
export function EditedBadge() {
  return (
    <Badge tone="neutral" dot={false} data-testid="replay-edited" title="Sent with an edited method, headers, body, path or query">
      Edited
    </Badge>
  );
}

/**
 * Replay attempts, newest first: one per row, each opening its attempt page. `withEvent`
 * adds the endpoint and event columns (the Replays page; an event's history has no need).
 */
export function ReplayTable({ rows, withEvent, caption }: { rows: ReplayRow[]; withEvent: boolean; caption: string }) {
  const open = useRowOpener();
  const columns: Column[] = [
    "Time",
    ...(withEvent ? ["Endpoint", "Event type"] : []),
    "Environment",
    "Sent to",
    "Status",
    "Response",
    { label: "Latency", className: "num" },
  ];
  return (
    <DataTable className={`replays-table stacks-on-phone${withEvent ? "" : " is-compact"}`} caption={caption} columns={columns}>
      {rows.map((row) => (
        <tr key={row.id} data-testid="replay-row" data-replay-id={row.id} data-status={row.status} className="replay-row" onClick={(event) => open(event, `/replays/${row.id}`)}>
          <td data-label="Time" className="cell-time">
            <Link to={`/replays/${row.id}`} className="replay-link truncate" prefetch="intent">
              <span className="sr-only">Replayed </span>
              <RelativeTime value={row.replayedAt} />
            </Link>
          </td>
          {withEvent ? (
            <>
              <EndpointCell name={row.endpointName} />
              <td data-label="Event type" className="cell-type">
                <Link to={`/events/${row.eventId}`} className={`event-link${row.eventType === "unknown" ? " is-unknown" : ""}`} title={`Open the event ${row.eventType}`}>
                  {row.eventType}
                </Link>
              </td>
            </>
          ) : null}
          <td data-label="Environment" className="cell-env">
            <EnvironmentChip environment={row.environment} />
          </td>
          <td data-label="Sent to" className="cell-url">
            {/* Where it went: the destination's name, or custom URL, staging, local via listen, browser local. */}
            <span className="replay-destination" data-testid="replay-destination">
              {attemptDestinationLabel(replayDestination(row))}
            </span>
            <Truncated text={row.destinationUrl} className="mono" />
          </td>
          <td data-label="Status" className="cell-status">
            <StatusBadge status={row.status} title={row.error ?? undefined} />
            {row.modified ? <EditedBadge /> : null}
          </td>
          <td data-label="Response" className="cell-response">
            {row.responseStatus !== null ? <HttpStatus code={row.responseStatus} /> : <span className="muted small">No response</span>}
          </td>
          <LatencyCell ms={row.latencyMs} />
        </tr>
      ))}
    </DataTable>
  );
}
