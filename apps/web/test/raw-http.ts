import { connect } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends bytes exactly as given over a fresh TCP connection and reads the answer:
 * for requests node's own client would normalise (duplicate headers, lying lengths).
 * Resolves when the server answers and closes, even if it stopped reading our bytes.
 */
export function rawRequest(url: string, chunks: Array<Buffer | string>, options: { pauseMs?: number } = {}): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    socket.on("data", (chunk) => received.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // The server may close while we are still writing an oversized body; its answer is what counts.
      if (error.code !== "EPIPE" && error.code !== "ECONNRESET") reject(error);
    });
    socket.on("close", () => {
      const text = Buffer.concat(received).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      if (split === -1) return reject(new Error(`no HTTP response: ${JSON.stringify(text)}`));
      const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
      const headers = Object.fromEntries(headerLines.map((line) => {
        const colon = line.indexOf(":");
        return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
      }));
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: text.slice(split + 4) });
    });
    socket.on("connect", async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) break;
        socket.write(chunk);
        if (options.pauseMs) await new Promise((r) => setTimeout(r, options.pauseMs));
      }
    });
  });
}

/** A request head with the given header lines, in order, with Connection: close. */
export function head(method: string, target: string, headers: Array<[string, string]>): string {
  const lines = [["Host", "localhost"], ...headers, ["Connection", "close"]].map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join("")}\r\n`;
}
