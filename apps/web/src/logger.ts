import type { Logger, LogLevel } from "@rehook/core";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

/** One line per record on stderr: time, level, message, then key=value fields. */
export function createConsoleLogger(level: LogLevel, stream: NodeJS.WritableStream = process.stderr): Logger {
  const write = (recordLevel: Exclude<LogLevel, "silent">) => (message: string, fields?: Record<string, unknown>) => {
    if (ORDER[recordLevel] < ORDER[level]) return;
    const extra = fields
      ? Object.entries(fields).map(([key, value]) => ` ${key}=${typeof value === "string" ? JSON.stringify(value) : String(value)}`).join("")
      : "";
    stream.write(`${new Date().toISOString()} ${recordLevel.toUpperCase().padEnd(5)} ${message}${extra}\n`);
  };
  return { debug: write("debug"), info: write("info"), warn: write("warn"), error: write("error") };
}
