import { describePayload, hexDump } from "@rehook/core";
import type { EventView } from "@rehook/services";
import { deliveryLines } from "./deliveries.js";
import { instant, statusColor } from "./table.js";
import { paint, printable, printableBlock } from "./terminal-text.js";

/** Most body bytes a binary body shows as a hex dump (--json carries the whole preview). */
const HEX_DUMP_BYTES = 4096;

function requestLine(event: Pick<EventView, "method" | "path" | "query">): string {
  return `${event.method} ${event.path}${event.query ? `?${event.query}` : ""}`;
}

function bodyLines(event: EventView): string[] {
  if (event.body.length === 0) return ["(empty)"];
  const view = describePayload(event.body, event.contentType);
  const cut = event.bodyTruncated ? [`… (the first ${event.body.length.toLocaleString("en-US")} of ${event.sizeBytes.toLocaleString("en-US")} bytes)`] : [];
  if (view.kind === "json") return [printableBlock(view.pretty), ...cut];
  if (view.kind === "text") return [printableBlock(view.text), ...cut];
  const dumped = Math.min(event.body.length, HEX_DUMP_BYTES);
  const rest = dumped < event.sizeBytes ? [`… (${dumped.toLocaleString("en-US")} of ${event.sizeBytes.toLocaleString("en-US")} bytes shown; --json for the preview in base64)`] : [];
  return [hexDump(event.body, HEX_DUMP_BYTES), ...rest];
}

/**
 * One event for a person: what was received, what became of it (each destination's delivery
 * with its state and attempts), then its headers and body. Every text the sender chose is made printable.
 */
export function eventDetailText(event: EventView, color: boolean): string {
  const field = (name: string, value: string) => `${name.padEnd(11)}${value}`;
  const outcome = [
    paint(color, statusColor(event.status), event.status),
    event.responseStatus !== null ? ` ${event.responseStatus}` : "",
    event.latencyMs !== null ? ` in ${event.latencyMs} ms` : "",
    event.error ? ` (${printable(event.error)})` : "",
  ].join("");
  const lines = [
    field("Event", event.id),
    field("Endpoint", printable(`${event.endpointName} (${event.endpointSlug})`)),
    field("Received", instant(event.receivedAt)),
    field("Request", printable(requestLine(event))),
    field("Sender", printable(`${event.source} / ${event.eventType}`)),
    field("Status", outcome),
    ...(event.signature ? [field("Signature", event.signature)] : []),
    // A duplicate keeps its endpoint's destination but never goes there; the others' destinations are under Deliveries.
    ...(event.duplicateOf ? [field("Duplicate", `of ${event.duplicateOf} (stored, not forwarded)`)] : []),
    ...(event.nextAttemptAt ? [field("Next try", instant(event.nextAttemptAt))] : []),
    field("Size", `${event.sizeBytes.toLocaleString("en-US")} bytes`),
    field("Replays", String(event.replayCount)),
  ];
  if (event.deliveries.length > 0 || event.attempts.length > 0) lines.push("", "Deliveries", ...deliveryLines(event, color));
  lines.push("", "Headers", ...event.headers.map(([name, value]) => `  ${printable(name)}: ${printable(value)}`));
  lines.push("", "Body", ...bodyLines(event));
  return lines.join("\n");
}
