import { createWriteStream } from "node:fs";
import { once } from "node:events";
import { EXPORT_FORMATS, type ExportFormat } from "@rehook/core";
import { harEntry, harStart, HAR_END, ndjsonLine } from "@rehook/http";
import { eventContracts, eventFilterFields, openEventExport } from "@rehook/services";
import { contractFlags, fromFlags } from "../contract-options.js";
import { UsageError } from "../cli-error.js";
import { serverConfig } from "../env.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";
import type { CommandContext } from "./types.js";

/** The progress line is rewritten at most this often. */
export const PROGRESS_INTERVAL_MS = 500;

function formatOption(value: string | undefined): ExportFormat {
  if (value === undefined) return "ndjson";
  if (!(EXPORT_FORMATS as readonly string[]).includes(value)) throw new UsageError(`--format must be one of ${EXPORT_FORMATS.join(", ")}`);
  return value as ExportFormat;
}

/** The list's filter as flags: the events.list contract's filter fields (the dashboard-only `unresolved` aside). */
export const FILTER_FLAGS = {
  endpointId: "endpoint",
  status: "status",
  source: "source",
  eventType: "event-type",
  signature: "signature",
  receivedAfter: "received-after",
  receivedBefore: "received-before",
  search: "q",
};
export const FILTER_HELP = {
  endpointId: "only this endpoint's events (its id)",
  status: "only events with this status",
  search: "only events whose body or headers contain this text (the last 24 hours unless --received-after)",
};

/** Writes to the stream, waiting for it to take more when it asks (a slow pipe slows the reading). */
async function write(out: NodeJS.WritableStream, text: string): Promise<void> {
  if (!out.write(text)) await once(out, "drain");
}

export const eventsExportCommand = defineCommand(
  ["events", "export"],
  {
    usage:
      "rehook events export --email <email> [--team <slug>] [--format ndjson|har] [--endpoint <id>] [--status <status>] [--source <s>] [--event-type <t>] [--signature <valid|invalid|missing>] [--received-after <time>] [--received-before <time>] [--q <text>] [--output <file>]",
    summary: "Export a team's events (newest first) as NDJSON or HAR 1.2, to stdout or a file; progress on stderr.",
    options: {
      ...memberOptions,
      format: { type: "string", description: "ndjson (one event per line, the default) or har (one HAR 1.2 document)" },
      ...contractFlags(eventFilterFields, FILTER_FLAGS, FILTER_HELP),
      output: { type: "string", description: "write to this file instead of stdout" },
    },
  } as const,
  async (options, context: CommandContext) => {
    const format = formatOption(options.format);
    const filter = fromFlags(eventFilterFields, FILTER_FLAGS, options);
    // HAR's request URLs are the running server's capture URLs unless CAPTURE_BASE_URL or BASE_URL is set here.
    const { captureBaseUrl } = serverConfig(context.config);
    // Exporting reads what events.list shows, so it needs the role listing does.
    await asMember(context, options, eventContracts.listEventsContract, async ({ orm }, actor) => {
      // Filters are checked before the file is created.
      const events = openEventExport({ orm }, { teamId: actor.teamId, by: actor, filter });
      const out = options.output ? createWriteStream(options.output) : context.stdout;
      let exported = 0;
      const progress = (final: boolean) => process.stderr.write(`\rexported ${exported.toLocaleString("en-US")} events${final ? "\n" : ""}`);
      let shownAt = Date.now();
      if (format === "har") await write(out, harStart("1"));
      for await (const event of events) {
        await write(out, format === "ndjson" ? ndjsonLine(event) : `${exported === 0 ? "" : ","}${JSON.stringify(harEntry(event, captureBaseUrl))}`);
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
