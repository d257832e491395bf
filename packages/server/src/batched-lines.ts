/**
 * Log lines gathered during one turn of the event loop and written at its end in one write.
 * With captures logged at info, a write per line (synchronous for the pipes and files stderr
 * usually is) cost the capture path more than its own work at thousands of captures a
 * second. At most `maxBytes` wait: past that they are written at once. Whatever waits when
 * the process exits is written then (synchronously, as stderr writes on exit are).
 */
export interface LineSink {
  write(line: string): boolean;
}

/** Every sink's flush, run once when the process exits (one listener however many loggers). */
const flushOnExit = new Set<() => void>();
let exitHooked = false;

export function batchedLines(stream: NodeJS.WritableStream, maxBytes = 64 * 1024): LineSink {
  let waiting: string[] = [];
  let bytes = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const text = waiting.join("");
    waiting = [];
    bytes = 0;
    stream.write(text);
  };
  flushOnExit.add(flush);
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", () => flushOnExit.forEach((run) => run()));
  }
  return {
    write(line: string): boolean {
      waiting.push(line);
      bytes += line.length;
      if (bytes >= maxBytes) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return true;
    },
  };
}
