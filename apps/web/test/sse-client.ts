import { connect, type Socket } from "node:net";

export interface SseMessage {
  event: string;
  id: string | null;
  data: string;
}

export interface SseStream {
  status: number;
  /** The JSON body of a non-200 answer. */
  error: unknown;
  messages: SseMessage[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

/** Opens a server-sent-event stream with fetch and collects its messages as they arrive. */
export async function openSse(url: string, headers: Record<string, string>): Promise<SseStream> {
  const abort = new AbortController();
  const response = await fetch(url, { headers: { accept: "text/event-stream", ...headers }, signal: abort.signal });
  const messages: SseMessage[] = [];
  if (response.status !== 200) {
    return { status: response.status, error: await response.json(), messages, ended: Promise.resolve(), close: () => abort.abort() };
  }
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const ended = (async () => {
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const message: SseMessage = { event: "message", id: null, data: "" };
        const data: string[] = [];
        for (const line of block.split("\n")) {
          if (line.startsWith("event:")) message.event = line.slice(6).trim();
          else if (line.startsWith("id:")) message.id = line.slice(3).trim();
          else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
        }
        message.data = data.join("\n");
        if (data.length > 0 || message.event !== "message") messages.push(message);
      }
    }
  })();
  return { status: 200, error: null, messages, ended, close: () => abort.abort() };
}

/**
 * A client that sends a GET and then never reads a byte of the answer: its receive buffer
 * fills, then the server's socket buffer, and from there on every byte the server writes
 * waits in the server's memory unless the server holds back.
 */
export function openNonReadingClient(url: string, path: string, headers: Record<string, string>): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => {
      socket.pause();
      const lines = Object.entries({ host: `${hostname}:${port}`, accept: "text/event-stream", ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
      socket.write(`GET ${path} HTTP/1.1\r\n${lines.join("")}\r\n`);
      resolve(socket);
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // The server dropping us is what some tests wait for.
      if (error.code !== "ECONNRESET" && error.code !== "EPIPE") reject(error);
    });
  });
}
