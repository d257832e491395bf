/** One server-sent event. */
export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * Splits a text/event-stream into messages (the parts of the format Rehook sends: id,
 * event, data lines; comments and retry are skipped).
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = "";
  // Where to look for the next blank line: a 10 MiB body is one long data line, and
  // rescanning it from the start for every chunk would cost quadratic time.
  let scanFrom = 0;
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const separator = /\r?\n\r?\n/g;
      separator.lastIndex = scanFrom;
      const found = separator.exec(buffer);
      if (!found) {
        scanFrom = Math.max(0, buffer.length - 3);
        break;
      }
      const block = buffer.slice(0, found.index);
      buffer = buffer.slice(found.index + found[0].length);
      scanFrom = 0;
      let id: string | undefined;
      let event = "message";
      const data: string[] = [];
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "id") id = value;
        else if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
      if (data.length > 0) yield { id, event, data: data.join("\n") };
    }
  }
}
