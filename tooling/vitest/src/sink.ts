import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

export interface Sink {
  port: number;
  received: Received[];
  close(): Promise<void>;
}

/** A real HTTP server on loopback that records what arrives and answers as told. */
export async function startSink(answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<Sink> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? "", url: req.url ?? "", rawHeaders: req.rawHeaders, body });
      answer(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
