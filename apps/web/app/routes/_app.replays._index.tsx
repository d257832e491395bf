import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ListFilters, ListFooter, NoMatchesCard, useOlderPages } from "../components/list-page";
import { ReplayTable } from "../features/replay/replay-table";
import { EmptyCard, Icon, PageHeader, RouteError } from "../components/ui";
import { hasListFilter, listFilterKey, readListFilter, type ListFilter } from "../lib/list-filter";
import type { ReplayRow } from "../lib/replay";
import { trpc } from "../lib/trpc.client";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Replays · Rehook" }];

const REPLAY_STATUSES = [
  { value: "delivered", label: "Delivered" },
  { value: "failed", label: "Failed" },
] as const;
type ReplayStatus = (typeof REPLAY_STATUSES)[number]["value"];
const isReplayStatus = (value: unknown): value is ReplayStatus => REPLAY_STATUSES.some((status) => status.value === value);
type Filter = ListFilter<ReplayStatus>;

const PAGE = 50;

export async function loader({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  const filter = readListFilter(request, isReplayStatus);
  const [page, endpoints] = await Promise.all([context.caller.replays.list({ ...filter, limit: PAGE }), context.caller.endpoints.list()]);
  return {
    filter,
    replays: page.replays,
    nextCursor: page.nextCursor,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name })),
  };
}

export default function Replays() {
  const { filter, replays, nextCursor, endpoints } = useLoaderData<typeof loader>();
  return (
    <>
      <PageHeader title="Replays" description="Every time an event was sent again — from its page, from Activity or in bulk — with the target’s answer, newest first." />

      <ListFilters path="/replays" label="Filter replays" filter={filter} endpoints={endpoints} statuses={REPLAY_STATUSES} />

      <ReplayList key={listFilterKey(filter)} filter={filter} initialRows={replays} initialCursor={nextCursor} hasFilter={hasListFilter(filter)} />
    </>
  );
}

function ReplayList({ filter, initialRows, initialCursor, hasFilter }: { filter: Filter; initialRows: ReplayRow[]; initialCursor: string | null; hasFilter: boolean }) {
  const [state, setState] = useState({ rows: initialRows, cursor: initialCursor });

  // New loader data for the same filter (a revalidation) starts the list again.
  useEffect(() => setState({ rows: initialRows, cursor: initialCursor }), [initialRows, initialCursor]);

  // An older page goes below the rows already shown.
  const older = useOlderPages(
    state.cursor,
    (before) => trpc().replays.list.query({ ...filter, before, limit: PAGE }),
    (page) =>
      setState((current) => {
        const known = new Set(current.rows.map((row) => row.id));
        return { rows: [...current.rows, ...page.replays.filter((row) => !known.has(row.id))], cursor: page.nextCursor };
      }),
  );

  if (state.rows.length === 0) {
    return hasFilter ? (
      <NoMatchesCard path="/replays" icon={<Icon name="refresh" />} title="No matching replays">
        <p>No replay matches these filters.</p>
      </NoMatchesCard>
    ) : (
      <EmptyCard
        icon={<Icon name="refresh" />}
        title="No replays yet"
        actions={
          <Link to="/events" className="button primary">
            <Icon name="activity" />
            Go to Activity
          </Link>
        }
      >
        <p>
          Replaying sends a captured event again, byte for byte: to its destination, a staging host, your own machine or any URL. Open an event and press{" "}
          <kbd className="kbd-hint">R</kbd>, use the replay button on a row in Activity, or replay an endpoint’s failed events in bulk from its page.
        </p>
      </EmptyCard>
    );
  }

  return (
    <>
      <div className="card table-card replays-card">
        <ReplayTable rows={state.rows} withEvent caption="Replays, newest first" />
      </div>
      <ListFooter count={state.rows.length} noun="replay" cursor={state.cursor} older={older} />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
