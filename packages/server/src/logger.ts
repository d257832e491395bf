import { pino } from "pino";
import { redactFields, redactText, type Logger, type LogLevel } from "@rehook/core";
import { batchedLines } from "./batched-lines.js";
import { currentRequestId } from "./request-context.js";

export type LogFormat = "pretty" | "json";

export interface LoggerOptions {
  level: LogLevel;
  format?: LogFormat;
  stream?: NodeJS.WritableStream;
}

type RecordLevel = Exclude<LogLevel, "silent">;

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** Every record's fields after redaction, with the request id of the request being handled. */
function prepare(message: string, fields: Record<string, unknown> | undefined): [string, Record<string, unknown>] {
  const requestId = currentRequestId();
  const clean = redactFields(fields);
  return [redactText(message), requestId ? { ...clean, request_id: requestId } : clean];
}

/** LOG_FORMAT=pretty (terminals): one line per record: time, level, message, then key=value fields. */
export function createConsoleLogger(level: LogLevel, stream: NodeJS.WritableStream = process.stderr): Logger {
  const write = (recordLevel: RecordLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[recordLevel] < ORDER[level]) return;
    const [text, clean] = prepare(message, fields);
    const extra = Object.entries(clean)
      .map(([key, value]) => ` ${key}=${typeof value === "string" ? JSON.stringify(value) : typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}`)
      .join("");
    stream.write(`${new Date().toISOString()} ${recordLevel.toUpperCase().padEnd(5)} ${text}${extra}\n`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** LOG_FORMAT=json (log collectors): one JSON object per line, {"level","time","msg",...fields}, through pino. */
export function createJsonLogger(level: LogLevel, stream: NodeJS.WritableStream = process.stderr): Logger {
  const base = pino(
    {
      level,
      base: null,
      messageKey: "msg",
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  const write = (recordLevel: RecordLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (!base.isLevelEnabled(recordLevel)) return;
    const [text, clean] = prepare(message, fields);
    base[recordLevel](clean, text);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}

/** The process's logger: its lines are written once per turn of the event loop (batchedLines). */
export function createLogger(options: LoggerOptions): Logger {
  const stream = batchedLines(options.stream ?? process.stderr) as unknown as NodeJS.WritableStream;
  return options.format === "json" ? createJsonLogger(options.level, stream) : createConsoleLogger(options.level, stream);
}
