import type { RouterInputs, RouterOutputs } from "@rehook/api";
import { useEffect, useRef, useState } from "react";
import { trpc } from "../lib/trpc.client";
import type { Connection } from "./live-status";

type LiveInput = RouterInputs["events"]["live"];
type LiveRow = RouterOutputs["events"]["list"]["events"][number];

/** Retrying longer than this (or the browser going offline) shows Offline rather than Reconnecting. */
export const OFFLINE_AFTER_MS = 8_000;
/** The longest wait between two attempts to reopen a subscription that ended. */
const MAX_RETRY_MS = 30_000;

/**
 * The events.live subscription for a filter, its real state reported: rows as they come
 * (`onRows`), a catch-up read of the first page each time the stream (re)opens, and the
 * connection state. The browser's offline event shows Offline at once; its online event
 * reopens the stream without waiting for the next retry.
 */
export function useLiveEvents(input: LiveInput, onRows: (rows: LiveRow[]) => void): Connection {
  const [connection, setConnection] = useState<Connection>("connecting");
  const inputRef = useRef(input);
  const onRowsRef = useRef(onRows);
  onRowsRef.current = onRows;

  useEffect(() => {
    let stopped = false;
    let subscription: { unsubscribe(): void } | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let offlineTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let connectedBefore = false;
    const live = inputRef.current;

    // Set while the stream is down: the Offline timer runs from the drop, not from each failed retry.
    let dropped = false;
    const report = (state: Connection) => {
      if (stopped) return;
      if (state !== "reconnecting") {
        dropped = false;
        clearTimeout(offlineTimer);
        setConnection(state);
        return;
      }
      if (!dropped) {
        dropped = true;
        offlineTimer = setTimeout(() => !stopped && setConnection("offline"), OFFLINE_AFTER_MS);
      }
      setConnection((current) => (current === "offline" ? current : "reconnecting"));
    };

    const catchUp = () => {
      trpc()
        .events.list.query({ ...live, limit: 50 })
        .then((page) => {
          if (!stopped) onRowsRef.current(page.events);
        })
        .catch(() => {});
    };

    const start = () => {
      subscription?.unsubscribe();
      if (stopped) return;
      subscription = trpc().events.live.subscribe(live, {
        onData: (rows) => onRowsRef.current(rows),
        onConnectionStateChange(state) {
          if (state.state === "pending") {
            report("live");
            // Whatever arrived between the page load (or the drop) and this connection.
            catchUp();
            connectedBefore = true;
            failures = 0;
          } else if (state.state === "connecting") {
            report(connectedBefore || state.error ? "reconnecting" : "connecting");
          }
        },
        onError: retry,
        onComplete: () => retry(),
      });
    };

    // The subscription ended (an error it does not retry itself, or the server closed it): reopen it later.
    function retry() {
      subscription?.unsubscribe();
      if (stopped) return;
      report("reconnecting");
      failures += 1;
      clearTimeout(retryTimer);
      retryTimer = setTimeout(start, Math.min(MAX_RETRY_MS, 1000 * 2 ** Math.min(failures - 1, 5)));
    }

    const wentOffline = () => {
      dropped = true;
      clearTimeout(offlineTimer);
      setConnection("offline");
    };
    const cameOnline = () => {
      failures = 0;
      dropped = false;
      clearTimeout(retryTimer);
      clearTimeout(offlineTimer);
      setConnection("reconnecting");
      report("reconnecting");
      start();
    };
    window.addEventListener("offline", wentOffline);
    window.addEventListener("online", cameOnline);
    if (!navigator.onLine) wentOffline();
    start();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      clearTimeout(offlineTimer);
      window.removeEventListener("offline", wentOffline);
      window.removeEventListener("online", cameOnline);
      subscription?.unsubscribe();
    };
  }, []);

  return connection;
}
