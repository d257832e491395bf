import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { endAfterRequest, type LingerBounds } from "../src/index.js";

// The bounds of a lingering close: after a refusal the server reads and drops the rest of the
// request, but not for ever and not without limit.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that refuses every request at once with a 413, then lingers within `bounds`. */
async function refusingServer(bounds: LingerBounds): Promise<number> {
  const server = createServer((_req, res) => {
    res.writeHead(413, { "content-length": "2", connection: "close" });
    res.write("no");
    endAfterRequest(res, bounds);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** Sends a head declaring `declared` bytes, then `sendBytes` of them as fast as taken; resolves when the server closes. */
function send(port: number, declared: number, sendBytes: number): Promise<{ answer: string; sent: number; reset: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    let sent = 0;
    let reset = false;
    socket.on("data", (chunk) => (answer += chunk.toString("latin1")));
    socket.on("error", () => (reset = true));
    socket.on("close", () => resolve({ answer, sent, reset }));
    socket.on("connect", async () => {
      socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
      const piece = Buffer.alloc(64 * 1024, 0x61);
      while (sent < sendBytes && !socket.destroyed) {
        sent += piece.length;
        if (!socket.write(piece)) await new Promise((next) => (socket.once("drain", next), socket.once("close", next)));
      }
    });
  });
}

describe("a lingering close", () => {
  it("closes the connection of a sender that stops sending, after its answer", async () => {
    const port = await refusingServer({ maxMs: 60_000, idleMs: 100, maxBytes: 64 * 1024 * 1024 });
    const result = await send(port, 10 * 1024 * 1024, 128 * 1024);
    expect(result.answer).toMatch(/^HTTP\/1\.1 413 .*no$/s);
    expect(result.reset).toBe(false);
  });

  it("stops reading after maxBytes: a sender still writing past them is cut off", async () => {
    const port = await refusingServer({ maxMs: 60_000, idleMs: 60_000, maxBytes: 1024 * 1024 });
    const total = 256 * 1024 * 1024;
    const result = await send(port, total, total);
    expect(result.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(result.sent).toBeLessThan(total);
  });

  it("stops after maxMs however slowly the sender keeps sending", async () => {
    const port = await refusingServer({ maxMs: 200, idleMs: 60_000, maxBytes: 64 * 1024 * 1024 });
    const socket = connect(port, "127.0.0.1");
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("error", () => undefined);
    socket.on("connect", () => socket.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n"));
    const trickle = setInterval(() => !socket.destroyed && socket.write("a"), 20);
    await closed;
    clearInterval(trickle);
  });
});
