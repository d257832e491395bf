import { Form, Link, useLocation, useNavigate, useNavigation } from "@remix-run/react";
import { useId, useState, type ReactNode } from "react";
import { errorMessage } from "../lib/errors";
import { plural } from "../lib/format";
import { hasListFilter, listFilterKey, listFilterQuery, type EventListFilter } from "../lib/list-filter";
import { EmptyCard, FormError } from "./ui";
import "./list-page.css";

/**
 * The filter form above a list page (Activity, Replays): an endpoint and a status. Each change
 * navigates to the page's URL with the new query (a plain GET submit without JavaScript). On a
 * phone (under 640 px) the form folds behind a "Filters" button, so the list starts on the
 * first screen; the button says how many filters apply.
 */
export function ListFilters({
  path,
  label,
  filter,
  endpoints,
  statuses,
  children,
}: {
  /** The list page's path ("/events"). */
  path: string;
  /** The form's accessible name ("Filter events"). */
  label: string;
  filter: EventListFilter;
  endpoints: Array<{ id: string; name: string }>;
  statuses: ReadonlyArray<{ value: string; label: string }>;
  /** More fields (named as their URL parameters); text fields apply on Enter, menus at once. */
  children?: ReactNode;
}) {
  const navigate = useNavigate();
  const navigation = useNavigation();
  const filterKey = listFilterKey(filter);
  const filtering = navigation.state === "loading" && navigation.location.pathname === path;
  // A filter applied from the open form keeps it open (the page below may mount it afresh).
  const location = useLocation();
  const [open, setOpen] = useState(() => (location.state as { filtersOpen?: boolean } | null)?.filtersOpen === true);
  const formId = useId();
  const active = [...new URLSearchParams(listFilterQuery(filter)).keys()].length;

  function applyFilters(form: HTMLFormElement) {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      const text = String(value).trim();
      if (text) params.set(name, text);
    }
    const query = params.toString();
    navigate(query ? `${path}?${query}` : path, { preventScrollReset: true, state: { filtersOpen: open } });
  }

  return (
    <div className="filters-panel" data-open={open}>
      <button
        type="button"
        className="button secondary filters-toggle"
        aria-expanded={open}
        aria-controls={formId}
        onClick={() => setOpen((shown) => !shown)}
        data-testid="filters-toggle"
      >
        Filters{active > 0 ? ` (${active})` : ""}
      </button>
      <Form
        id={formId}
        method="get"
        className="filters"
        aria-label={label}
        // Menus apply at once; a text field would reload on every key, so it waits for Enter.
        onChange={(event) => event.target instanceof HTMLSelectElement && applyFilters(event.currentTarget)}
        onSubmit={(event) => {
          event.preventDefault();
          applyFilters(event.currentTarget);
        }}
      >
        <FilterField id="filter-endpoint" label="Endpoint" name="endpointId" value={filter.endpointId} filterKey={filterKey} anyLabel="All endpoints" options={endpoints.map(({ id, name }) => ({ value: id, label: name }))} />
        <FilterField id="filter-status" label="Status" name="status" value={filter.status} filterKey={filterKey} anyLabel="All" options={statuses} />
        {children}
        {children ? (
          <button type="submit" className="button secondary">
            Apply
          </button>
        ) : (
          <noscript>
            <button type="submit" className="button secondary">
              Apply
            </button>
          </noscript>
        )}
        {hasListFilter(filter) ? (
          <Link to={path} className="button ghost small clear-filters" preventScrollReset state={{ filtersOpen: open }}>
            Clear filters
          </Link>
        ) : null}
        {filtering ? <span className="muted small">Loading…</span> : null}
      </Form>
    </div>
  );
}

/**
 * One filter of a list page: a menu (`options`, with `anyLabel` for no filter, or an option of value "" for it) or, without
 * options, a text field. `filterKey` resets it when the filter changes from elsewhere.
 */
export function FilterField({
  id,
  label,
  name,
  value,
  filterKey,
  anyLabel,
  options,
  placeholder,
  type = "text",
  title,
}: {
  id: string;
  label: string;
  name: string;
  value: string | undefined;
  filterKey: string;
  anyLabel?: string;
  options?: ReadonlyArray<{ value: string; label: string }>;
  placeholder?: string;
  type?: "text" | "search";
  title?: string;
}) {
  return (
    <div className="field field-inline">
      <label htmlFor={id}>{label}</label>
      {options ? (
        <select id={id} name={name} defaultValue={value ?? ""} key={`${name}${filterKey}`}>
          {anyLabel !== undefined ? <option value="">{anyLabel}</option> : null}
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          name={name}
          type={type}
          placeholder={placeholder}
          maxLength={200}
          autoComplete="off"
          spellCheck={false}
          defaultValue={value ?? ""}
          key={`${name}${filterKey}`}
          title={title}
        />
      )}
    </div>
  );
}

/** A filtered list with nothing in it, and the way back to the whole list. */
export function NoMatchesCard({ path, icon, title, children }: { path: string; icon: ReactNode; title: string; children: ReactNode }) {
  return (
    <EmptyCard
      icon={icon}
      title={title}
      actions={
        <Link to={path} className="button secondary">
          Clear filters
        </Link>
      }
    >
      {children}
    </EmptyCard>
  );
}

export type OlderPages = { loading: boolean; error: string | null; loadOlder: () => Promise<void> };

/**
 * "Load older" for a list that pages by cursor: fetches the page before `cursor` and hands it
 * to `addPage`, keeping whether it is loading and why it failed.
 */
export function useOlderPages<Page>(cursor: string | null, fetchPage: (before: string) => Promise<Page>, addPage: (page: Page) => void): OlderPages {
  const [older, setOlder] = useState<{ loading: boolean; error: string | null }>({ loading: false, error: null });

  async function loadOlder() {
    if (!cursor) return;
    setOlder({ loading: true, error: null });
    try {
      addPage(await fetchPage(cursor));
      setOlder({ loading: false, error: null });
    } catch (error) {
      setOlder({ loading: false, error: errorMessage(error) });
    }
  }

  return { ...older, loadOlder };
}

/** Below a paged list: how many rows it shows, and Load older while there are more. */
export function ListFooter({ count, noun, cursor, older }: { count: number; noun: string; cursor: string | null; older: OlderPages }) {
  return (
    <>
      <div className="feed-footer">
        <span className="muted small">{plural(count, noun)} shown</span>
        {cursor ? (
          <button type="button" className="button secondary" onClick={older.loadOlder} disabled={older.loading}>
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
