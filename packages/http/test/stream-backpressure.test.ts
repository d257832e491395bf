import { createServer, type Server, type ServerResponse } from "node:http";
import { connect, type AddressInfo, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../../../tooling/vitest/src/wait-for.js";
import { SseWriter } from "../src/sse-writer.js";
import { watchBackpressure, type StreamBounds } from "../src/stream-backpressure.js";

const MiB = 1024 * 1024;
const opened: Array<{ close(): void }> = [];
afterEach(() => opened.splice(0).forEach((thing) => thing.close()));

/** A loopback server whose one response is handed to the test as soon as a request arrives. */
async function serve(): Promise<{ port: number; response: Promise<ServerResponse> }> {
  let hand: (res: ServerResponse) => void = () => undefined;
  const response = new Promise<ServerResponse>((resolve) => (hand = resolve));
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/octet-stream" });
    hand(res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  opened.push({ close: () => (server.closeAllConnections(), server.close()) });
  return { port: (server.address() as AddressInfo).port, response };
}

/** Sends a GET; a paused client never reads the answer. */
function client(port: number, reads: boolean): Socket & { received: number } {
  const socket = connect(port, "127.0.0.1") as Socket & { received: number };
  socket.received = 0;
  socket.on("error", () => undefined);
  socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n");
  if (reads) socket.on("data", (chunk: Buffer) => (socket.received += chunk.length));
  else socket.pause();
  opened.push({ close: () => socket.destroy() });
  return socket;
}

const closed = (res: ServerResponse) => new Promise<void>((resolve) => (res.destroyed ? resolve() : res.once("close", () => resolve())));

describe("watchBackpressure", () => {
  it("drops a client once more than maxQueuedBytes wait for it", async () => {
    const { port, response } = await serve();
    client(port, false);
    const res = await response;
    const reasons: string[] = [];
    watchBackpressure(res, { maxQueuedBytes: 4 * MiB, maxBlockedMs: 60_000 }, (reason) => reasons.push(reason));
    // Someone else's writes that do not wait for 'drain' (the kernel takes a few MiB at most).
    for (let i = 0; i < 40 && !res.destroyed; i += 1) res.write(Buffer.alloc(MiB));
    await closed(res);
    expect(reasons).toEqual([expect.stringMatching(/more than 4194304 bytes waiting/)]);
  });

  it("drops a client whose socket refused bytes for maxBlockedMs, and not before", async () => {
    const { port, response } = await serve();
    client(port, false);
    const res = await response;
    const bounds: StreamBounds = { maxQueuedBytes: 64 * MiB, maxBlockedMs: 200 };
    const watch = watchBackpressure(res, bounds);
    // A well-behaved writer: the next piece only after 'drain'.
    let blockedAt = 0;
    for (let i = 0; i < 200 && !res.destroyed; i += 1) {
      if (!res.write(Buffer.alloc(256 * 1024))) {
        blockedAt = performance.now();
        await watch.drained();
      }
    }
    await closed(res);
    expect(performance.now() - blockedAt).toBeGreaterThanOrEqual(190);
  });

  it("never drops a client that reads, however much goes through", async () => {
    const { port, response } = await serve();
    const socket = client(port, true);
    const res = await response;
    const writer = new SseWriter(res, { maxQueuedBytes: MiB, maxBlockedMs: 200 });
    const text = "x".repeat(4 * MiB);
    for (let i = 0; i < 8; i += 1) expect(await writer.send([text, { base64: Buffer.alloc(MiB, i) }])).toBe(true);
    expect(res.destroyed).toBe(false);
    const sent = 8 * (4 * MiB + Buffer.alloc(MiB).toString("base64").length);
    await waitFor(() => socket.received >= sent, "every byte at the client");
    expect(res.destroyed).toBe(false);
  });
});
