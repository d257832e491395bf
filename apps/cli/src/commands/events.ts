import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { EVENT_STATUSES, EXPORT_FORMATS, harEntry, harStart, HAR_END, ndjsonLine, type EventStatus, type ExportFormat } from "@rehook/core";
import { openEventExport, requireUserByEmail } from "@rehook/services";
import { UsageError } from "../cli-error.js";
import { defineCommand } from "./define.js";
import type { CommandContext } from "./types.js";
import { withDatabase } from "./with-database.js";

/** The progress line is rewritten at most this often. */
export const PROGRESS_INTERVAL_MS = 500;

function dateOption(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new UsageError(`--${name} must be a date and time, e.g. 2026-01-31T12:00:00Z`);
  return date;
}

function formatOption(value: string | undefined): ExportFormat {
  if (value === undefined) return "ndjson";
  if (!(EXPORT_FORMATS as readonly string[]).includes(value)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(", ")}`);
  return value as ExportFormat;
}

function statusOption(value: string | undefined): EventStatus | undefined {
  if (value === undefined) return undefined;
  if (!(EVENT_STATUSES as readonly string[]).includes(value)) throw new UsageError(`--status must be one of ${EVENT_STATUSES.join(", ")}`);
  return value as EventStatus;
}

/** Writes to the stream, waiting for it to take more when it asks (a slow pipe slows the reading). */
async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, "drain");
}

export const eventsExportCommand = defineCommand(
  ["events", "export"],
  {
    usage:
      "rehook events export --email <email> [--format ndjson|har] [--endpoint <id>] [--status <status>] [--source <s>] [--event-type <t>] [--received-after <time>] [--received-before <time>] [--q <text>] [--output <file>]",
    summary: "Export a user's events (newest first) as NDJSON or HAR 1.2, to stdout or a file; progress on stderr.",
    options: {
      email: { type: "string", required: true, description: "the owner's email" },
      format: { type: "string", description: "ndjson (one event per line, the default) or har (one HAR 1.2 document)" },
      endpoint: { type: "string", description: "only this endpoint's events (its id)" },
      status: { type: "string", description: `only events with this status: ${EVENT_STATUSES.join(", ")}` },
      source: { type: "string", description: "only events from this sender, e.g. stripe" },
      "event-type": { type: "string", description: "only events of this type, e.g. invoice.paid" },
      "received-after": { type: "string", description: "only events received at or after this time (ISO 8601)" },
      "received-before": { type: "string", description: "only events received before this time (ISO 8601)" },
      q: { type: "string", description: "only events whose body or headers contain this text (the last 24 hours unless --received-after)" },
      output: { type: "string", description: "write to this file instead of stdout" },
    },
  } as const,
  async (options, context: CommandContext) => {
    const format = formatOption(options.format);
    const filter = {
      endpointId: options.endpoint,
      status: statusOption(options.status),
      source: options.source,
      eventType: options["event-type"],
      receivedAfter: dateOption("received-after", options["received-after"]),
      receivedBefore: dateOption("received-before", options["received-before"]),
      search: options.q,
    };
    await withDatabase(context, async ({ orm }) => {
      const userId = (await requireUserByEmail({ orm }, options.email)).id;
      // Filters are checked before the file is created.
      const events = openEventExport({ orm }, { userId, filter });
      const out = options.output ? createWriteStream(options.output) : context.stdout;
      let exported = 0;
      const progress = (final: boolean) => process.stderr.write(`\rexported ${exported.toLocaleString("en-US")} events${final ? "\n" : ""}`);
      let shownAt = Date.now();
      if (format === "har") await write(out, harStart("1"));
      for await (const event of events) {
        await write(out, format === "ndjson" ? ndjsonLine(event) : `${exported === 0 ? "" : ","}${JSON.stringify(harEntry(event, context.config.captureBaseUrl))}`);
        exported += 1;
        if (Date.now() - shownAt >= PROGRESS_INTERVAL_MS) {
          progress(false);
          shownAt = Date.now();
        }
      }
      if (format === "har") await write(out, HAR_END);
      if (out !== context.stdout) {
        out.end();
        await once(out, "finish");
      }
      progress(true);
    });
    return undefined;
  },
);
