import {
  ancestorPointers,
  initialExpansion,
  isContainer,
  jsonContainers,
  jsonEntries,
  jsonScalarText,
  pointerStep,
  searchJson,
  type JsonContainer,
} from "@rehook/core/browser";
import { createContext, memo, useContext, useDeferredValue, useEffect, useId, useMemo, useRef, useState, type ReactNode } from "react";

/** Children a container shows at a time ("Show more" adds as many again). */
const PAGE = 100;
/** "Expand all" opens at most this many objects and arrays, breadth first. */
const EXPAND_ALL_LIMIT = 2000;
/** Matches a search marks at most. */
const MATCH_LIMIT = 1000;

interface TreeState {
  expanded: Set<string>;
  toggle(pointer: string): void;
  /** Containers holding a match (shown even past their page), and the matched nodes. */
  onMatchPath: Set<string>;
  matched: Map<string, { key: boolean; value: boolean }>;
  current: string | null;
  needle: string;
  shown: Map<string, number>;
  /** Shows the next page of a container's children (`revealed`: those children, with their pointers). */
  showMore(pointer: string, revealed: Array<[string, unknown]>): void;
  /** A document cut short: the innermost container the cut left open, and it with its ancestors. */
  cutAt: string | null;
  cutPath: Set<string>;
}

const TreeContext = createContext<TreeState | null>(null);

/** `text` with every case-insensitive occurrence of `needle` marked. */
function Highlight({ text, needle, current }: { text: string; needle: string; current: boolean }) {
  if (!needle) return <>{text}</>;
  const lower = text.toLowerCase();
  const parts: ReactNode[] = [];
  let at = 0;
  for (let found = lower.indexOf(needle); found !== -1 && parts.length < 200; found = lower.indexOf(needle, at)) {
    if (found > at) parts.push(text.slice(at, found));
    parts.push(
      <mark key={found} className={current ? "jt-mark is-current" : "jt-mark"}>
        {text.slice(found, found + needle.length)}
      </mark>,
    );
    at = found + needle.length;
  }
  if (parts.length === 0) return <>{text}</>;
  parts.push(text.slice(at));
  return <>{parts}</>;
}

function scalarClass(value: unknown): string {
  if (value === null) return "jt-null";
  return `jt-${typeof value}`;
}

/** "[3 items]", "{1 key}"; "[3+ items]" for a container the cut left open (it held more). */
function summary(value: JsonContainer, cut: boolean): string {
  const more = cut ? "+" : "";
  if (Array.isArray(value)) return `[${value.length === 1 && !cut ? "1 item" : `${value.length.toLocaleString("en-US")}${more} items`}]`;
  const keys = Object.keys(value).length;
  return `{${keys === 1 && !cut ? "1 key" : `${keys.toLocaleString("en-US")}${more} keys`}}`;
}

const JsonNode = memo(function JsonNode({ name, value, pointer }: { name: string | number | null; value: unknown; pointer: string }) {
  const state = useContext(TreeContext)!;
  const match = state.matched.get(pointer);
  const isCurrent = state.current === pointer;
  const key =
    name === null ? null : (
      <>
        <span className={typeof name === "number" ? "jt-index" : "jt-key"}>
          {typeof name === "number" ? name : <Highlight text={name} needle={match?.key ? state.needle : ""} current={isCurrent} />}
        </span>
        <span className="jt-colon">: </span>
      </>
    );
  if (!isContainer(value)) {
    return (
      <li className="jt-node" data-pointer={pointer}>
        <div className={`jt-row${match ? " is-match" : ""}`}>
          <span className="jt-spacer" aria-hidden="true" />
          {key}
          <span className={scalarClass(value)}>
            <Highlight text={jsonScalarText(value)} needle={match?.value ? state.needle : ""} current={isCurrent} />
          </span>
        </div>
      </li>
    );
  }
  const open = state.expanded.has(pointer);
  const entries = open ? jsonEntries(value) : [];
  return (
    <li className="jt-node" data-pointer={pointer}>
      <div className={`jt-row${match ? " is-match" : ""}`}>
        <button type="button" className="jt-toggle" aria-expanded={open} onClick={() => state.toggle(pointer)}>
          <span className="jt-arrow" aria-hidden="true" />
          {key}
          <span className="jt-summary">{summary(value, state.cutPath.has(pointer))}</span>
        </button>
      </div>
      {open ? <Children pointer={pointer} entries={entries} /> : null}
    </li>
  );
});

/** A container's children: the first pages, plus any child on the way to a search match. */
function Children({ pointer, entries }: { pointer: string; entries: Array<[string | number, unknown]> }) {
  const state = useContext(TreeContext)!;
  const limit = state.shown.get(pointer) ?? PAGE;
  const rows: ReactNode[] = [];
  let skipped = 0;
  for (let index = 0; index < entries.length; index += 1) {
    const [key, child] = entries[index]!;
    const childPointer = pointer + pointerStep(key);
    if (index < limit || state.onMatchPath.has(childPointer) || state.matched.has(childPointer)) {
      if (skipped > 0) {
        rows.push(
          <li key={`gap-${index}`} className="jt-gap" aria-hidden="true">
            … {skipped.toLocaleString("en-US")} more …
          </li>,
        );
        skipped = 0;
      }
      rows.push(<JsonNode key={String(key)} name={key} value={child} pointer={childPointer} />);
    } else skipped += 1;
  }
  const hidden = entries.length - Math.min(limit, entries.length);
  return (
    <ul className="jt-children">
      {rows}
      {hidden > 0 ? (
        <li className="jt-more">
          <button
            type="button"
            className="text-link jt-more-button"
            onClick={() => state.showMore(pointer, entries.slice(limit, limit + PAGE).map(([key, child]) => [pointer + pointerStep(key), child]))}
          >
            Show {Math.min(PAGE, hidden).toLocaleString("en-US")} more of {hidden.toLocaleString("en-US")}
          </button>
        </li>
      ) : null}
      {state.cutAt === pointer ? (
        <li className="jt-cut" data-testid="json-cut">
          … the preview ends here
        </li>
      ) : null}
    </ul>
  );
}

/**
 * A collapsible JSON tree. Rendered lazily: a container's children exist in the DOM only
 * while it is open, a page at a time, and it opens only a screenful at first, so a 256 KiB
 * document stays quick. With `searchable`, a search box marks matching keys and values,
 * opens the way to each, and steps through them (Enter, Shift+Enter). A document cut short
 * (`cutAt`: the pointer of the innermost container left open) says where it ends.
 */
export function JsonTree({
  value,
  label,
  searchable = true,
  testId,
  cutAt = null,
}: {
  value: unknown;
  label: string;
  searchable?: boolean;
  testId?: string;
  cutAt?: string | null;
}) {
  const [expanded, setExpanded] = useState(() => new Set(initialExpansion(value)));
  const [shown, setShown] = useState(() => new Map<string, number>());
  const [query, setQuery] = useState("");
  const [currentIndex, setCurrentIndex] = useState(0);
  const [expandNote, setExpandNote] = useState<string | null>(null);
  // After "Expand all", children revealed by "Show more" open too.
  const allOpen = useRef(false);
  const deferredQuery = useDeferredValue(query);
  const needle = deferredQuery.trim().toLowerCase();
  const treeRef = useRef<HTMLUListElement>(null);
  const searchId = useId();

  // A new document (the page reloaded its data) starts over.
  const previous = useRef(value);
  useEffect(() => {
    if (previous.current === value) return;
    previous.current = value;
    setExpanded(new Set(initialExpansion(value)));
    setShown(new Map());
  }, [value]);

  const search = useMemo(() => searchJson(value, needle, MATCH_LIMIT), [value, needle]);
  const { matched, onMatchPath } = useMemo(() => {
    const matched = new Map<string, { key: boolean; value: boolean }>();
    const onMatchPath = new Set<string>();
    for (const match of search.matches) {
      const entry = matched.get(match.pointer) ?? { key: false, value: false };
      entry[match.on] = true;
      matched.set(match.pointer, entry);
      for (const ancestor of ancestorPointers(match.pointer)) onMatchPath.add(ancestor);
    }
    return { matched, onMatchPath };
  }, [search]);
  const matchPointers = useMemo(() => [...matched.keys()], [matched]);
  const cutPath = useMemo(() => new Set(cutAt === null ? [] : [...ancestorPointers(cutAt), cutAt]), [cutAt]);

  // A search opens the way to every match (the user may close them again).
  useEffect(() => {
    setCurrentIndex(0);
    if (onMatchPath.size === 0) return;
    setExpanded((open) => {
      const next = new Set(open);
      for (const pointer of onMatchPath) next.add(pointer);
      return next;
    });
  }, [onMatchPath]);

  const current = matchPointers.length > 0 ? matchPointers[Math.min(currentIndex, matchPointers.length - 1)]! : null;
  useEffect(() => {
    if (current === null) return;
    const row = treeRef.current?.querySelector(`[data-pointer="${CSS.escape(current)}"]`);
    row?.scrollIntoView({ block: "nearest" });
  }, [current, expanded]);

  const state = useMemo<TreeState>(
    () => ({
      expanded,
      toggle: (pointer) =>
        setExpanded((open) => {
          const next = new Set(open);
          if (next.has(pointer)) next.delete(pointer);
          else next.add(pointer);
          return next;
        }),
      onMatchPath,
      matched,
      current,
      needle,
      shown,
      cutAt,
      cutPath,
      showMore: (pointer, revealed) => {
        setShown((counts) => new Map(counts).set(pointer, (counts.get(pointer) ?? PAGE) + PAGE));
        if (!allOpen.current) return;
        setExpanded((open) => {
          const next = new Set(open);
          for (const [base, child] of revealed) {
            for (const relative of jsonContainers(child, { limit: EXPAND_ALL_LIMIT / PAGE, childLimit: PAGE }).pointers) next.add(base + relative);
          }
          return next;
        });
      },
    }),
    [expanded, onMatchPath, matched, current, needle, shown, cutAt, cutPath],
  );

  function step(by: number) {
    if (matchPointers.length === 0) return;
    setCurrentIndex((index) => (index + by + matchPointers.length) % matchPointers.length);
  }

  function expandAll() {
    // The children on screen (a page of each container): the rest open as "Show more" reveals them.
    const { pointers, capped } = jsonContainers(value, { limit: EXPAND_ALL_LIMIT, childLimit: PAGE });
    setExpanded(new Set(pointers));
    allOpen.current = true;
    setExpandNote(capped ? `Opened the first ${EXPAND_ALL_LIMIT.toLocaleString("en-US")} objects and arrays; open the others one by one.` : null);
  }

  const count = search.matches.length;
  const matchText = !needle
    ? ""
    : count === 0
      ? "No matches"
      : `${Math.min(currentIndex, matchPointers.length - 1) + 1} of ${matchPointers.length.toLocaleString("en-US")}${search.capped ? "+" : ""} ${matchPointers.length === 1 ? "match" : "matches"}`;

  return (
    <div className="jt">
      {searchable ? (
        <div className="jt-toolbar">
          <div className="jt-search">
            <label htmlFor={searchId} className="sr-only">
              Search keys and values
            </label>
            <input
              id={searchId}
              type="search"
              placeholder="Search keys and values"
              value={query}
              onChange={(event) => setQuery(event.target.value)}
              onKeyDown={(event) => {
                if (event.key !== "Enter") return;
                event.preventDefault();
                step(event.shiftKey ? -1 : 1);
              }}
              data-testid="json-search"
            />
            <span className="jt-count" aria-live="polite" data-testid="json-search-count">
              {matchText}
            </span>
            <button type="button" className="button ghost small" onClick={() => step(-1)} disabled={matchPointers.length === 0} aria-label="Previous match">
              ↑
            </button>
            <button type="button" className="button ghost small" onClick={() => step(1)} disabled={matchPointers.length === 0} aria-label="Next match">
              ↓
            </button>
          </div>
          <div className="jt-bulk">
            <button type="button" className="button ghost small" onClick={expandAll}>
              Expand all
            </button>
            <button
              type="button"
              className="button ghost small"
              onClick={() => {
                setExpanded(new Set(isContainer(value) ? [""] : []));
                allOpen.current = false;
                setExpandNote(null);
              }}
            >
              Collapse all
            </button>
          </div>
        </div>
      ) : null}
      {expandNote ? <p className="muted small jt-note">{expandNote}</p> : null}
      <TreeContext.Provider value={state}>
        <ul className="jt-root" ref={treeRef} aria-label={label} data-testid={testId}>
          <JsonNode name={null} value={value} pointer="" />
        </ul>
      </TreeContext.Provider>
    </div>
  );
}
