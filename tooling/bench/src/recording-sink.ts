import { createServer, type Server } from "node:http";

/** One request a recording sink took: when, on which path, with which body. */
export interface Arrival {
  at: number;
  path: string;
  body: string;
}

/** A destination on loopback that answers 200 and records every request (the benches' destinations). */
export interface RecordingSink {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

export async function startRecordingSink(): Promise<RecordingSink> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      arrivals.push({ at: performance.now(), path: req.url ?? "", body: Buffer.concat(chunks).toString() });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the sink has no port");
  return {
    url: `http://127.0.0.1:${address.port}`,
    arrivals,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Polls `condition` every 100 ms until it holds or `timeoutMs` passes; answers whether it held. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

/** POSTs each body to `url`, `concurrency` at a time, each retried until answered 200 (as providers retry); answers the ids acknowledged. */
export async function sendAll(url: string, bodies: string[], concurrency: number, deadlineMs = 300_000): Promise<string[]> {
  const acknowledged: string[] = [];
  const queue = [...bodies];
  const deadline = Date.now() + deadlineMs;
  const worker = async () => {
    for (let body = queue.shift(); body !== undefined; body = queue.shift()) {
      for (;;) {
        if (Date.now() > deadline) throw new Error("sendAll: the server did not take every request in time");
        try {
          const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body, signal: AbortSignal.timeout(10_000) });
          const text = await response.text();
          if (response.status === 200) {
            acknowledged.push((JSON.parse(text) as { eventId: string }).eventId);
            break;
          }
        } catch {
          // Refused or cut off (the server is restarting): try again shortly.
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return acknowledged;
}
