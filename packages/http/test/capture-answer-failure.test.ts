import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Logger, RenderedResponse } from "@rehook/core";
import { createCaptureHandler } from "../src/index.js";
import { defaultBodies } from "./default-bodies.js";

// An endpoint's own answer that node refuses to write (here a header value beyond Latin-1)
// must never take the process down, least of all from a delayed answer's timer: the sender
// gets a 500 (or a closed connection once headers went), the error is logged, and the
// server goes on serving.

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function recordingLogger(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (message) => void errors.push(message) };
}

const UNSENDABLE: RenderedResponse = { status: 200, headers: { "x-first": "fine", "x-mood": "\u{1F600}" }, body: "ok" };

describe("a custom answer node refuses to send", () => {
  for (const delayMs of [0, 50]) {
    it(`becomes a logged 500 without the answer's headers, and the server keeps serving (delay_ms ${delayMs})`, async () => {
      const logger = recordingLogger();
      let answer: RenderedResponse | undefined = UNSENDABLE;
      const handler = createCaptureHandler({
        capture: async () => ({ kind: "accepted", eventId: "01930000-0000-7000-8000-000000000000", status: "captured", answer, delayMs }),
        maxPayloadBytes: 1024,
        bodies: defaultBodies(),
        maxHeaderCount: 50,
        trustedProxyHops: 0,
        logger,
      });
      // As the server's listener does: a header set before the handler runs.
      const url = await serve((req, res) => {
        res.setHeader("x-request-id", "r1");
        void handler(req, res);
      });
      const failed = await fetch(`${url}/api/webhook/some-endpoint-abcdefgh`, { method: "POST", body: "{}" });
      expect(failed.status).toBe(500);
      expect(await failed.json()).toMatchObject({ error: { code: "internal", message: expect.stringContaining("was stored") } });
      expect(failed.headers.get("x-first")).toBeNull();
      expect(failed.headers.get("x-request-id")).toBe("r1");
      expect(logger.errors).toEqual(["a custom response could not be sent"]);

      answer = undefined;
      const next = await fetch(`${url}/api/webhook/some-endpoint-abcdefgh`, { method: "POST", body: "{}" });
      expect(next.status).toBe(200);
    });
  }
});
