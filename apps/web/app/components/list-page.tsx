import { Form, Link, useNavigate, useNavigation } from "@remix-run/react";
import { useState, type ReactNode } from "react";
import { errorMessage } from "../lib/errors";
import { plural } from "../lib/format";
import { hasListFilter, listFilterKey, type EventListFilter } from "../lib/list-filter";
import { EmptyCard, FormError } from "./ui";
import "./list-page.css";

/**
 * The filter form above a list page (Activity, Replays): an endpoint and a status. Each change
 * navigates to the page's URL with the new query (a plain GET submit without JavaScript).
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

  function applyFilters(form: HTMLFormElement) {
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(form)) {
      const text = String(value).trim();
      if (text) params.set(name, text);
    }
    const query = params.toString();
    navigate(query ? `${path}?${query}` : path, { preventScrollReset: true });
  }

  return (
    <Form
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
        <Link to={path} className="button ghost small clear-filters" preventScrollReset>
          Clear filters
        </Link>
      ) : null}
      {filtering ? <span className="muted small">Loading…</span> : null}
    </Form>
  );
}

/**
 * One filter of a list page: a menu (`options`, with `anyLabel` for no filter) or, without
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
          <option value="">{anyLabel}</option>
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
