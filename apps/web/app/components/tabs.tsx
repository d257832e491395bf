import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import "./tabs.css";

export interface TabItem {
  id: string;
  label: string;
  /** A small figure after the label (a header count, a status code). */
  extra?: ReactNode;
  /** Colours the figure by what it means (a response's status: ok, warn, fail) instead of the accent. */
  extraTone?: "ok" | "warn" | "fail";
  render: () => ReactNode;
}

/**
 * Tabs in the WAI-ARIA pattern: arrow keys, Home and End move between tabs (roving
 * tabindex, automatic activation), each tab controls its panel.
 */
export function Tabs({ items, label, initial }: { items: TabItem[]; label: string; initial?: string }) {
  const [selected, setSelected] = useState(initial ?? items[0]!.id);
  const base = useId();
  const refs = useRef<Array<HTMLButtonElement | null>>([]);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = items.findIndex((item) => item.id === selected);
    let next = index;
    if (event.key === "ArrowRight") next = (index + 1) % items.length;
    else if (event.key === "ArrowLeft") next = (index - 1 + items.length) % items.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = items.length - 1;
    else return;
    event.preventDefault();
    setSelected(items[next]!.id);
    refs.current[next]?.focus();
  }

  return (
    <div className="tabs">
      <div role="tablist" aria-label={label} className="tablist" onKeyDown={onKeyDown}>
        {items.map((item, index) => {
          const active = item.id === selected;
          return (
            <button
              key={item.id}
              ref={(element) => {
                refs.current[index] = element;
              }}
              type="button"
              role="tab"
              id={`${base}-tab-${item.id}`}
              aria-selected={active}
              aria-controls={`${base}-panel-${item.id}`}
              tabIndex={active ? 0 : -1}
              className="tab"
              onClick={() => setSelected(item.id)}
            >
              {item.label}
              {item.extra !== undefined ? (
                <span className={item.extraTone ? `count-pill tab-extra tab-extra-${item.extraTone}` : "count-pill tab-extra"} aria-hidden="true">
                  {item.extra}
                </span>
              ) : null}
            </button>
          );
        })}
      </div>
      {items.map((item) => {
        const active = item.id === selected;
        return (
          <div
            key={item.id}
            role="tabpanel"
            id={`${base}-panel-${item.id}`}
            aria-labelledby={`${base}-tab-${item.id}`}
            hidden={!active}
            className="tabpanel"
            tabIndex={0}
          >
            {active ? item.render() : null}
          </div>
        );
      })}
    </div>
  );
}
