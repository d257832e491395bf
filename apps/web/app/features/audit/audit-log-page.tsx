import type { ReactNode } from "react";
import { Link } from "@remix-run/react";
import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, type AuditEntry } from "@rehook/core/browser";
import { DataTable, Truncated } from "../../components/data-table";
import { FilterField } from "../../components/list-page";
import { RelativeTime } from "../../components/relative-time";
import { EmptyCard, Icon, PageHeader } from "../../components/ui";
import { auditFilterParams, type AuditFilter } from "./audit-query";
import "./audit.css";

/** An entry as the loader hands it over (its time serialised). */
type EntryRow = Omit<AuditEntry, "at"> & { at: string | Date };

const TARGET_KINDS = [...new Set(AUDIT_ACTIONS.map((action) => action.split(".")[0]!))];
const ACTION_OPTIONS = [
  ...TARGET_KINDS.map((kind) => ({ value: `${kind}.`, label: `${kind}.* (all)` })),
  ...AUDIT_ACTIONS.map((action) => ({ value: action, label: action })),
];
const ACTOR_OPTIONS = AUDIT_ACTOR_TYPES.map((type) => ({ value: type, label: type === "api_key" ? "API key" : type === "cli" ? "CLI" : type === "user" ? "User" : "System" }));

/** Settings → Audit log: who changed what in the team, newest first, filtered; exported as NDJSON. */
export function AuditLogPage({ teamName, filter, page, paged }: { teamName: string; filter: AuditFilter; page: { entries: EntryRow[]; nextCursor: string | null }; paged: boolean }) {
  const filterKey = auditFilterParams(filter);
  return (
    <>
      <PageHeader
        title="Audit log"
        description={
          <>
            Every change in <strong className="break">{teamName}</strong>, who made it and from where, newest first. Entries are never changed, and are kept for AUDIT_RETENTION_DAYS (a year by default).
          </>
        }
        actions={
          <a className="button secondary" href={`/settings/audit-log/export${filterKey}`} download data-testid="audit-export">
            Export NDJSON
          </a>
        }
      />
      <form method="get" className="list-filters audit-filters" aria-label="Filter the audit log">
        <FilterField id="audit-actor" label="Actor" name="actor_type" value={filter.actorType} filterKey={filterKey} anyLabel="Anyone" options={ACTOR_OPTIONS} />
        <FilterField id="audit-action" label="Action" name="action" value={filter.action} filterKey={filterKey} anyLabel="Any action" options={ACTION_OPTIONS} />
        <FilterField id="audit-actor-id" label="Actor id" name="actor_id" value={filter.actorId} filterKey={filterKey} placeholder="a user's or API key's id" />
        <FilterField id="audit-target" label="Target id" name="target_id" value={filter.targetId} filterKey={filterKey} placeholder="an endpoint, key, member… id" />
        <div className="field field-inline">
          <label htmlFor="audit-from">From</label>
          <input id="audit-from" name="from" type="date" defaultValue={filter.from ?? ""} key={`from${filterKey}`} />
        </div>
        <div className="field field-inline">
          <label htmlFor="audit-to">To</label>
          <input id="audit-to" name="to" type="date" defaultValue={filter.to ?? ""} key={`to${filterKey}`} />
        </div>
        <button type="submit" className="button secondary">
          Filter
        </button>
        {filterKey ? (
          <Link to="/settings/audit-log" className="button ghost">
            Clear
          </Link>
        ) : null}
      </form>
      {page.entries.length === 0 ? (
        <EmptyCard icon={<Icon name="shield" />} title={filterKey || paged ? "No matching entries" : "Nothing recorded yet"}>
          <p>{filterKey ? "No entry matches these filters." : "Changes to endpoints, keys, members and settings appear here as they are made."}</p>
        </EmptyCard>
      ) : (
        <DataTable className="audit-table" caption="Audit log entries, newest first" columns={["When", "Actor", "Action", "Target", "Changes", "From"]}>
          {page.entries.map((entry) => (
            <AuditRow key={entry.id} entry={entry} />
          ))}
        </DataTable>
      )}
      <div className="feed-footer">
        {paged ? (
          <Link to={`/settings/audit-log${filterKey}`} className="button ghost">
            Newest
          </Link>
        ) : (
          <span />
        )}
        {page.nextCursor ? (
          <Link to={`/settings/audit-log${auditFilterParams(filter, { cursor: page.nextCursor })}`} className="button secondary" data-testid="audit-older">
            Older entries
          </Link>
        ) : (
          <span className="muted small">That’s everything.</span>
        )}
      </div>
    </>
  );
}

// Everything below is text a tenant may control (names, changed values): React renders it as text, never as markup.
function AuditRow({ entry }: { entry: EntryRow }) {
  const changes = entry.changes ? JSON.stringify(entry.changes) : "";
  return (
    <tr data-testid="audit-row">
      <td data-label="When">
        <RelativeTime value={entry.at} />
      </td>
      <td data-label="Actor">
        <span className="muted small">{entry.actor.type === "api_key" ? "API key" : entry.actor.type}</span>{" "}
        <NarrowingLink param="actor_id" id={entry.actor.id} title="Only this actor's entries">
          <Truncated text={entry.actor.name ?? entry.actor.id ?? "—"} />
        </NarrowingLink>
      </td>
      <td data-label="Action">
        <code>{entry.action}</code>
      </td>
      <td data-label="Target">
        <span className="muted small">{entry.target.type}</span>{" "}
        <NarrowingLink param="target_id" id={entry.target.id} title="Only entries about this target">
          <Truncated text={entry.target.name ?? entry.target.id ?? "—"} />
        </NarrowingLink>
      </td>
      <td data-label="Changes" className="audit-changes">
        {changes ? <Truncated text={changes} className="mono small" /> : <span className="muted">—</span>}
      </td>
      <td data-label="From" className="small">
        {entry.ip ?? "—"}
        {entry.requestId ? <Truncated text={entry.requestId} className="audit-request-id muted mono small" /> : null}
      </td>
    </tr>
  );
}

/** A name that narrows the log to its actor's or target's entries (plain text when it has no id). */
function NarrowingLink({ param, id, title, children }: { param: "actor_id" | "target_id"; id: string | null; title: string; children: ReactNode }) {
  if (!id) return <>{children}</>;
  return (
    <Link to={`/settings/audit-log?${new URLSearchParams({ [param]: id }).toString()}`} title={title} data-testid={`audit-${param}`}>
      {children}
    </Link>
  );
}
