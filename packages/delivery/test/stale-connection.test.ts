import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createSafeAgent, sendRequest, type DeliveryTask } from "../src/index.js";

const open = createSafeAgent({ policy: { allowPrivate: true }, connectTimeoutMs: 2_000 });
afterAll(() => open.close());

/** What the raw server saw: one list of request heads per connection, in order. */
interface RawServer {
  port: number;
  connections: string[][];
  close(): Promise<void>;
}

type Reply = (socket: Socket, connection: number, request: number) => void;

const OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\n\r\nok";

/**
 * A bare TCP server speaking just enough HTTP/1.1 to control, byte by byte, what a client
 * sees on each connection: reply() is called once per complete request.
 */
async function rawServer(reply: Reply): Promise<RawServer> {
  const connections: string[][] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    const connection = connections.push([]) - 1;
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end === -1) return;
        const head = buffered.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.byteLength < end + 4 + length) return;
        buffered = buffered.subarray(end + 4 + length);
        const request = connections[connection]!.push(head) - 1;
        reply(socket, connection, request);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

let servers: RawServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});

async function server(reply: Reply): Promise<RawServer> {
  const started = await rawServer(reply);
  servers.push(started);
  return started;
}

function task(port: number, path: string, overrides: Partial<DeliveryTask> = {}): DeliveryTask {
  return {
    url: `http://127.0.0.1:${port}${path}`,
    method: "POST",
    headers: [["Content-Type", "application/json"]],
    body: Buffer.from("{}"),
    timeoutMs: 5_000,
    maxResponseBytes: 1024,
    allowPrivate: true,
    ...overrides,
  };
}

/**
 * Sends a first request and lets its connection go back to the pool: undici frees a
 * connection for the next request one setImmediate after the answer completes.
 */
async function warmUp(port: number): Promise<void> {
  expect(await sendRequest(open, task(port, "/first"))).toMatchObject({ ok: true, status: 200 });
  await new Promise((resolve) => setImmediate(resolve));
}

const paths = (server: RawServer) => server.connections.map((heads) => heads.map((head) => head.split(" ")[1]));

describe("a request on a pooled connection the server has dropped", () => {
  it.each([
    ["reset (RST)", (socket: Socket) => socket.resetAndDestroy()],
    ["closed (FIN)", (socket: Socket) => socket.end()],
  ])("is sent once more on a fresh connection when the reused one is %s before any answer byte", async (_how, drop) => {
    // The first connection answers once, then drops whatever comes next on it unanswered.
    const target = await server((socket, connection, request) => {
      if (connection === 0 && request > 0) drop(socket);
      else socket.write(OK);
    });
    await warmUp(target.port);
    const second = await sendRequest(open, task(target.port, "/second"));
    expect(second).toMatchObject({ ok: true, status: 200, error: null });
    expect(paths(target)).toEqual([["/first", "/second"], ["/second"]]);
    // The retry asked for a connection of its own, so it cannot meet another stale one.
    expect(target.connections[1]![0]).toMatch(/\r\nconnection: close/i);
  });

  it("is not resent when the reset comes on a fresh connection (the server may have acted on it)", async () => {
    const target = await server((socket) => socket.resetAndDestroy());
    const result = await sendRequest(open, task(target.port, "/once"));
    expect(result).toMatchObject({ ok: false, status: null, error: "connection reset" });
    expect(paths(target)).toEqual([["/once"]]);
  });

  it("is not resent when part of the answer arrived before the connection was lost", async () => {
    const target = await server((socket, connection, request) => {
      if (connection === 0 && request > 0) socket.end("HTTP/1.1 200 OK\r\nContent-Le");
      else socket.write(OK);
    });
    await warmUp(target.port);
    const result = await sendRequest(open, task(target.port, "/partial"));
    expect(result).toMatchObject({ ok: false, status: null, error: "connection reset" });
    expect(paths(target)).toEqual([["/first", "/partial"]]);
  });

  it("is retried once only: a reset on the retry's fresh connection is the result", async () => {
    const target = await server((socket, connection, request) => {
      if (connection === 0 && request === 0) socket.write(OK);
      else socket.resetAndDestroy();
    });
    await warmUp(target.port);
    const result = await sendRequest(open, task(target.port, "/again"));
    expect(result).toMatchObject({ ok: false, error: "connection reset" });
    expect(paths(target)).toEqual([["/first", "/again"], ["/again"]]);
  });

  it("keeps the retry within the request's one total deadline", async () => {
    // The stale connection is reset 300 ms in; the fresh one never answers; the deadline is 800 ms.
    const target = await server((socket, connection, request) => {
      if (connection === 0 && request === 0) socket.write(OK);
      else if (connection === 0) setTimeout(() => socket.resetAndDestroy(), 300);
    });
    await warmUp(target.port);
    const result = await sendRequest(open, task(target.port, "/slow", { timeoutMs: 800 }));
    expect(result).toMatchObject({ ok: false, timedOut: true, error: "no complete answer within 800 ms" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(790);
    expect(result.latencyMs).toBeLessThan(1_000);
    expect(paths(target)).toEqual([["/first", "/slow"], ["/slow"]]);
  });
});

describe("the fresh-connection dispatcher used for the retry", () => {
  it("applies the same address policy as the pool", async () => {
    const closed = createSafeAgent({ policy: { allowPrivate: false }, connectTimeoutMs: 2_000 });
    try {
      const target = await server((socket) => socket.write(OK));
      const attempt = closed.fresh.request({ origin: `http://localhost:${target.port}`, path: "/", method: "GET" });
      await expect(attempt).rejects.toMatchObject({ code: "ERR_REHOOK_BLOCKED_ADDRESS", message: "blocked: loopback address" });
      expect(target.connections).toHaveLength(0);
    } finally {
      await closed.close();
    }
  });
});
