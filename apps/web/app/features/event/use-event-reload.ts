import { useRevalidator } from "@remix-run/react";
import { useEffect, useRef, type Dispatch, type SetStateAction } from "react";
import { trpc } from "../../lib/trpc.client";

/**
 * Reloads the page's data one request at a time: a second reload would abort the first (an
 * AbortError nobody handles). A reload asked for meanwhile runs when the first is done. The
 * function answered never changes.
 */
export function useSerialReload(): () => void {
  const revalidator = useRevalidator();
  const revalidateRef = useRef(revalidator.revalidate);
  revalidateRef.current = revalidator.revalidate;
  const reloading = useRef(false);
  const reloadAgain = useRef(false);
  const revalidate = useRef(() => {
    if (reloading.current) {
      reloadAgain.current = true;
      return;
    }
    reloading.current = true;
    void Promise.resolve(revalidateRef.current())
      .catch(() => undefined)
      .finally(() => {
        reloading.current = false;
        if (!reloadAgain.current) return;
        reloadAgain.current = false;
        revalidate.current();
      });
  });
  return revalidate.current;
}

/** A scheduled attempt: look again shortly after it is due (the live feed reports the result too). */
export function useReloadAfter(nextAttemptAt: string | Date | null, reload: () => void) {
  const nextAt = nextAttemptAt ? new Date(nextAttemptAt).getTime() : null;
  useEffect(() => {
    if (nextAt === null) return;
    const wait = Math.min(Math.max(nextAt - Date.now(), 0) + 1500, 2_147_000_000);
    const timer = setTimeout(() => reload(), wait);
    return () => clearTimeout(timer);
    // `reload` never changes (useSerialReload): only the due time restarts the timer.
  }, [nextAt]);
}

/** A pending event: reload when its delivery finishes, or an attempt changes it. */
export function useReloadWhileWaiting(waiting: boolean, event: { id: string; endpointId: string }, reload: () => void) {
  useEffect(() => {
    if (!waiting) return;
    let checked = false;
    const subscription = trpc().events.live.subscribe(
      { endpointId: event.endpointId },
      {
        onStarted() {
          // The delivery may have finished between the page load and the subscription.
          if (!checked) {
            checked = true;
            reload();
          }
        },
        onData(rows) {
          if (rows.some((row) => row.id === event.id)) reload();
        },
      },
    );
    return () => subscription.unsubscribe();
  }, [waiting, event.id, event.endpointId]);
}

/** R opens the replay dialog, unless the user is typing or holds a modifier. */
export function useReplayShortcut(setReplaying: Dispatch<SetStateAction<boolean>>, enabled = true) {
  useEffect(() => {
    // A role that may not replay has no shortcut (its button is disabled too).
    if (!enabled) return;
    function onKeyDown(keyEvent: KeyboardEvent) {
      if (keyEvent.key !== "r" && keyEvent.key !== "R") return;
      if (keyEvent.defaultPrevented || keyEvent.repeat || keyEvent.ctrlKey || keyEvent.metaKey || keyEvent.altKey || keyEvent.shiftKey) return;
      const target = keyEvent.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, [contenteditable]:not([contenteditable='false'])")) return;
      if (document.querySelector("dialog[open]")) return;
      keyEvent.preventDefault();
      setReplaying(true);
    }
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [enabled]);
}
