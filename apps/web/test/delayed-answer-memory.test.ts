import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { head } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";
import type { Socket } from "node:net";
import { uploadLargeBody } from "./upload-client.js";

// A custom response's delay holds only a timer and the socket: once the event is committed,
// nothing keeps its body in memory while the answer waits.

// --expose-gc for this process only (vitest's workers start without it).
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const MIB = 1024 * 1024;
const BODY = 4 * MIB;
const SENDERS = 12;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ MAX_PAYLOAD_BYTES: String(8 * MIB) });
});
afterAll(() => t.close());

/** Buffers (Node allocates request bodies outside the JS heap) after a full collection. */
function bufferBytes(): number {
  gc();
  gc();
  return process.memoryUsage().arrayBuffers;
}

describe("a delayed custom response", () => {
  it("does not keep committed bodies in memory while the answers wait", async () => {
    const endpoint = await t.createEndpoint("Slow answer");
    await t.db.query("update endpoints set custom_response = $1 where id = $2", [JSON.stringify({ status: 202, headers: {}, body: "later", delayMs: 30_000 }), endpoint.id]);
    const stored = async () => Number((await t.db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1", [endpoint.id]))[0]!.n);

    const before = bufferBytes();
    const sockets: Socket[] = [];
    let answered = 0;
    for (let i = 0; i < SENDERS; i += 1) {
      // The whole body goes out (from one small piece: the sender holds no body); the answer then waits for the delay.
      uploadLargeBody(t.rehook.url, head("POST", `/api/webhook/${endpoint.slug}`, [["Content-Length", String(BODY)]]), { bodyBytes: BODY, onSocket: (socket) => sockets.push(socket) })
        .then(() => (answered += 1))
        .catch(() => undefined);
    }
    await waitFor(async () => (await stored()) === SENDERS, "every body to be stored");
    expect(answered).toBe(0);

    // 48 MiB of bodies were received; what stays while 12 answers wait must be far less.
    const held = bufferBytes() - before;
    expect(held).toBeLessThan(8 * MIB);
    for (const socket of sockets) socket.destroy();
  });
});
