import { useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState, useSyncExternalStore, type MouseEvent } from "react";

const noopSubscribe = () => () => {};

/** False during the server render and hydration, true afterwards (then re-renders once). */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    noopSubscribe,
    () => true,
    () => false,
  );
}

/** A ref for a create form that empties it each time `created` changes to something new (a created id, the created row). */
export function useResetAfterCreate(created: unknown) {
  const ref = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (created) ref.current?.reset();
  }, [created]);
  return ref;
}

/** A ref for a native <dialog> that is shown as a modal while `open` is true, and closed otherwise. */
export function useModalDialog(open: boolean) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return ref;
}

/** Opens a row's link when the row itself is clicked (not a link or button in it, not a text selection). */
export function useRowOpener() {
  const navigate = useNavigate();
  return (event: MouseEvent<HTMLTableRowElement>, to: string) => {
    const target = event.target as HTMLElement;
    if (target.closest("a, button")) return;
    if (window.getSelection()?.toString()) return;
    if (event.metaKey || event.ctrlKey) {
      window.open(to, "_blank", "noopener");
      return;
    }
    navigate(to);
  };
}

// One shared clock for every relative time on the page.
const TICK_MS = 10_000;
let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribeClock(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    now = Date.now();
    timer = setInterval(() => {
      now = Date.now();
      for (const notify of listeners) notify();
    }, TICK_MS);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

/** The current time in ms, refreshed every 10 s while something on the page shows an age. */
export function useNow(): number {
  return useSyncExternalStore(
    subscribeClock,
    () => now,
    () => (typeof window === "undefined" ? Date.now() : now),
  );
}

/** The current time in ms, refreshed every `everyMs` (a countdown that shows seconds). */
export function useTickingNow(everyMs: number): number {
  const [current, setCurrent] = useState(() => Date.now());
  useEffect(() => {
    setCurrent(Date.now());
    const timer = setInterval(() => setCurrent(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return current;
}
