import { useEffect, useRef } from "react";

export interface FeedKeyActions {
  /** j (+1) and k (-1). */
  move(step: 1 | -1): void;
  /** Enter on the selection. */
  open(): void;
  /** `/`. */
  focusSearch(): void;
}

/** Whether a key press belongs to a field or a control that uses the key itself. */
function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest("input, textarea, select, [role='dialog']") !== null;
}

/**
 * The feed's keyboard shortcuts, on the whole page: j/k move the selection, Enter opens it,
 * `/` focuses the search. Never while typing in a field, nor with a modifier held; Enter only
 * when no link or button has the focus (those answer Enter themselves).
 */
export function useFeedKeys(actions: FeedKeyActions): void {
  const ref = useRef(actions);
  ref.current = actions;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target)) return;
      if (event.key === "j" || event.key === "k") {
        event.preventDefault();
        ref.current.move(event.key === "j" ? 1 : -1);
      } else if (event.key === "/") {
        event.preventDefault();
        ref.current.focusSearch();
      } else if (event.key === "Enter" && !(event.target instanceof HTMLElement && event.target.closest("a, button"))) {
        event.preventDefault();
        ref.current.open();
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);
}
