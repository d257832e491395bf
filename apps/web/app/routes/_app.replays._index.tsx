import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, Link, useLoaderData, useNavigate, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ReplayTable } from "../components/replays";
import { EmptyCard, FormError, Icon, PageHeader, RouteError } from "../components/ui";
import { errorMessage } from "../lib/errors";
import { isUuid, plural } from "../lib/format";
import type { ReplayRow } from "../lib/replay";
import { trpc } from "../lib/trpc.client";

export const meta: MetaFunction = () => [{ title: "Replays · Rehook" }];

const REPLAY_STATUSES = [
  { value: "delivered", label: "Delivered" },
  { value: "failed", label: "Failed" },
] as const;
type ReplayStatus = (typeof REPLAY_STATUSES)[number]["value"];
const isReplayStatus = (value: unknown): value is ReplayStatus => REPLAY_STATUSES.some((status) => status.value === value);
type Filter = { endpointId?: string; status?: ReplayStatus };

const PAGE = 50;

export async function loader({ context, request }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const endpointParam = params.get("endpointId");
  const statusParam = params.get("status");
  const filter: Filter = {
    ...(isUuid(endpointParam) ? { endpointId: endpointParam } : {}),
    ...(isReplayStatus(statusParam) ? { status: statusParam } : {}),
  };
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
  const navigate = useNavigate();
  const navigation = useNavigation();
  const filterKey = `${filter.endpointId ?? ""}|${filter.status ?? ""}`;
  const filtering = navigation.state === "loading" && navigation.location.pathname === "/replays";
  const hasFilter = Boolean(filter.endpointId || filter.status);

  function applyFilters(form: HTMLFormElement) {
    const data = new FormData(form);
    const params = new URLSearchParams();
    for (const name of ["endpointId", "status"]) {
      const value = String(data.get(name) ?? "");
      if (value) params.set(name, value);
    }
    const query = params.toString();
    navigate(query ? `/replays?${query}` : "/replays", { preventScrollReset: true });
  }

  return (
    <>
      <PageHeader title="Replays" description="Every time an event was sent again — from its page, from Activity or in bulk — with the target’s answer, newest first." />

      <Form
        method="get"
        className="filters"
        aria-label="Filter replays"
        onChange={(event) => applyFilters(event.currentTarget)}
        onSubmit={(event) => {
          event.preventDefault();
          applyFilters(event.currentTarget);
        }}
      >
        <div className="field field-inline">
          <label htmlFor="filter-endpoint">Endpoint</label>
          <select id="filter-endpoint" name="endpointId" defaultValue={filter.endpointId ?? ""} key={`e${filterKey}`}>
            <option value="">All endpoints</option>
            {endpoints.map((endpoint) => (
              <option key={endpoint.id} value={endpoint.id}>
                {endpoint.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-inline">
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" name="status" defaultValue={filter.status ?? ""} key={`s${filterKey}`}>
            <option value="">All</option>
            {REPLAY_STATUSES.map((status) => (
              <option key={status.value} value={status.value}>
                {status.label}
              </option>
            ))}
          </select>
        </div>
        <noscript>
          <button type="submit" className="button secondary">
            Apply
          </button>
        </noscript>
        {hasFilter ? (
          <Link to="/replays" className="button ghost small clear-filters" preventScrollReset>
            Clear filters
          </Link>
        ) : null}
        {filtering ? <span className="muted small">Loading…</span> : null}
      </Form>

      <ReplayList key={filterKey} filter={filter} initialRows={replays} initialCursor={nextCursor} hasFilter={hasFilter} />
    </>
  );
}

function ReplayList({ filter, initialRows, initialCursor, hasFilter }: { filter: Filter; initialRows: ReplayRow[]; initialCursor: string | null; hasFilter: boolean }) {
  const [state, setState] = useState({ rows: initialRows, cursor: initialCursor });
  const [older, setOlder] = useState<{ loading: boolean; error: string | null }>({ loading: false, error: null });

  // New loader data for the same filter (a revalidation) starts the list again.
  useEffect(() => setState({ rows: initialRows, cursor: initialCursor }), [initialRows, initialCursor]);

  async function loadOlder() {
    if (!state.cursor) return;
    setOlder({ loading: true, error: null });
    try {
      const page = await trpc().replays.list.query({ ...filter, before: state.cursor, limit: PAGE });
      setState((current) => {
        const known = new Set(current.rows.map((row) => row.id));
        return { rows: [...current.rows, ...page.replays.filter((row) => !known.has(row.id))], cursor: page.nextCursor };
      });
      setOlder({ loading: false, error: null });
    } catch (error) {
      setOlder({ loading: false, error: errorMessage(error) });
    }
  }

  if (state.rows.length === 0) {
    return hasFilter ? (
      <EmptyCard
        icon={<Icon name="refresh" />}
        title="No matching replays"
        actions={
          <Link to="/replays" className="button secondary">
            Clear filters
          </Link>
        }
      >
        <p>No replay matches these filters.</p>
      </EmptyCard>
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
      <div className="feed-footer">
        <span className="muted small">{plural(state.rows.length, "replay")} shown</span>
        {state.cursor ? (
          <button type="button" className="button secondary" onClick={loadOlder} disabled={older.loading}>
            {older.loading ? "Loading…" : "Load older"}
          </button>
        ) : (
          <span className="muted small">That’s everything.</span>
        )}
      </div>
      <FormError message={older.error} />
    </>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
