import { fit } from "../output/table.js";
import { paint, printable } from "../output/terminal-text.js";

/** What `rehook listen` tells its user, whether as lines for a person or JSON for a script. */
export type ListenNews =
  | { type: "unreachable"; server: string; reason: string; retryInMs: number }
  | { type: "connected"; reconnected: boolean; endpoint: string; forward: string }
  | { type: "reconnecting"; reason: string; retryInMs: number }
  | {
      /** A live event, or a Local replay the dashboard handed over. */
      type: "event" | "replay";
      eventId: string;
      method: string;
      /** The sub-path it was captured on, with its query (/orders?id=1). */
      path: string;
      source: string;
      eventType: string;
      status: number | null;
      ok: boolean;
      latencyMs: number;
      error: string | null;
    }
  | { type: "summary"; received: number; ok: number; failed: number };

export type ListenFormat = "text" | "json";

function clock(): string {
  return new Date().toTimeString().slice(0, 8);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One line for a person: coloured when `color`, times in the local clock. */
function textLine(news: ListenNews, color: boolean): string {
  switch (news.type) {
    case "unreachable":
      return `${paint(color, 33, "○ cannot reach")} ${news.server} (${news.reason}); trying again in ${seconds(news.retryInMs)}`;
    case "connected":
      return `${paint(color, 32, news.reconnected ? "● reconnected" : "● connected")}: forwarding ${news.endpoint} to ${news.forward}${news.reconnected ? " (catching up on what was missed)" : ""}`;
    case "reconnecting":
      return `${paint(color, 33, "○ reconnecting")} in ${seconds(news.retryInMs)} (${news.reason})`;
    case "event":
    case "replay": {
      // The id finds the event again (rehook events get, replay); what the sender chose is made printable.
      const status = news.status === null ? paint(color, 31, `error: ${printable(news.error ?? "")}`) : paint(color, news.ok ? 32 : 31, String(news.status));
      const request = `${printable(news.method).padEnd(6)} ${fit(printable(news.path), 32).padEnd(32)}`;
      const line = `${clock()}  ${news.eventId}  ${request} ${fit(printable(`${news.source}/${news.eventType}`), 40).padEnd(40)} → ${status}  ${news.latencyMs} ms`;
      return news.type === "replay" ? `${line}  (replay from the dashboard)` : line;
    }
    case "summary":
      return `\n${news.received} event(s): ${news.ok} answered 2xx, ${news.failed} failed`;
  }
}

/** One JSON object a line, snake_case like the API, with the time it happened. */
function jsonLine(news: ListenNews): string {
  const fields: Record<string, unknown> = { type: news.type, at: new Date().toISOString() };
  for (const [key, value] of Object.entries(news)) if (key !== "type") fields[key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = value;
  return JSON.stringify(fields);
}

/** Writes each piece of news to `out` in the chosen format. */
export function createReporter(out: NodeJS.WritableStream, format: ListenFormat, color: boolean): (news: ListenNews) => void {
  return (news) => out.write(`${format === "json" ? jsonLine(news) : textLine(news, color)}\n`);
}
