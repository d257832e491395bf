import { useLoaderData } from "@remix-run/react";
import { FilterField, ListFilters } from "../../components/list-page";
import { SIGNATURE_STATUS_CHOICES } from "../../lib/ingress";
import { listFilterKey, timeMenu } from "../../lib/list-filter";
import type { loadActivityPage } from "./activity-data.server";
import { RESOLVED_OPTIONS, STATUS_OPTIONS } from "./activity-filter";
import { Feed } from "./feed";
import "./activity.css";

/** Activity: the filters, then the live feed (a new one for each filter). */
export function ActivityPage() {
  const { filter, events, nextCursor, endpoints, volume } = useLoaderData<typeof loadActivityPage>();
  const filterKey = listFilterKey(filter);
  const filters = (
    <>
      <ListFilters path="/events" label="Filter events" filter={filter} endpoints={endpoints} statuses={STATUS_OPTIONS}>
        {filter.status === "failed" ? (
          <FilterField id="filter-unresolved" label="Resolved" name="unresolved" value={filter.unresolved} filterKey={filterKey} anyLabel="Include resolved" options={RESOLVED_OPTIONS} />
        ) : null}
        <FilterField id="filter-since" label="Time" name="since" value={filter.since} filterKey={filterKey} {...timeMenu(filter)} />
        <FilterField id="filter-type" label="Event type" name="eventType" value={filter.eventType} filterKey={filterKey} placeholder="invoice.paid" />
        <FilterField id="filter-source" label="Source" name="source" value={filter.source} filterKey={filterKey} placeholder="stripe" />
        <FilterField id="filter-signature" label="Signature" name="signature" value={filter.signature} filterKey={filterKey} anyLabel="Any" options={SIGNATURE_STATUS_CHOICES} />
        <FilterField
          id="filter-search"
          label="Search"
          name="q"
          type="search"
          value={filter.search}
          filterKey={filterKey}
          placeholder="text in the body, a header or the path  ( / )"
          title="Finds events whose body (decoded when compressed), headers, path or query string contain this text. Without a time range, searches the last 24 hours. Press / to come here."
        />
      </ListFilters>
      {filter.search && !filter.since ? <p className="muted small">Searching the last 24 hours; choose a time range to search further back.</p> : null}
    </>
  );
  return <Feed key={filterKey} filter={filter} filters={filters} initialEvents={events} initialCursor={nextCursor} endpoints={endpoints} volume={volume} />;
}
