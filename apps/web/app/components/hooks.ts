import { useEffect, useRef, useSyncExternalStore } from "react";

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
