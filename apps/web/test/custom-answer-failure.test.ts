import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

// A custom response node cannot send (a header value beyond Latin-1, saved before such values
// were refused at save) must not take the server down, with or without a delay: the event is
// stored, the sender gets an answer, and the next request is served. The answer is the custom
// one without that header (rendering drops what node cannot write), or else a 500; the 500
// itself is tested in packages/http/test/capture-answer-failure.test.ts.

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

async function endpointAnswering(name: string, delayMs: number): Promise<{ id: string; slug: string }> {
  const endpoint = await t.createEndpoint(name);
  // Straight into the database: saving through the services refuses such a value.
  const answer = { status: 200, headers: { "x-first": "fine", "x-mood": "\u{1F600} and \u2028" }, body: "ok", delayMs };
  await t.db.query("update endpoints set custom_response = $1 where id = $2", [JSON.stringify(answer), endpoint.id]);
  return endpoint;
}

const stored = async (endpointId: string) =>
  Number((await t.db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1", [endpointId]))[0]!.n);

describe("a custom response that cannot be sent", () => {
  for (const delayMs of [0, 50]) {
    it(`answers 500 after storing the event and keeps serving (delay_ms ${delayMs})`, async () => {
      const endpoint = await endpointAnswering(`Unsendable ${delayMs}`, delayMs);
      const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${endpoint.slug}`, [["Content-Length", "2"]]), "{}"]);
      if (response.status === 500) {
        expect(JSON.parse(response.body)).toMatchObject({ error: { code: "internal", message: expect.stringContaining("was stored") } });
        // Headers the answer set before node refused one do not leak into the 500.
        expect(response.headers["x-first"]).toBeUndefined();
      } else {
        expect(response.status).toBe(200);
        expect(response.body).toBe("ok");
        expect(response.headers["x-mood"]).toBeUndefined();
      }
      expect(await stored(endpoint.id)).toBe(1);

      const next = await t.createEndpoint(`Next ${delayMs}`);
      const served = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${next.slug}`, [["Content-Length", "2"]]), "{}"]);
      expect(served.status).toBe(200);
      expect((await fetch(`${t.rehook.url}/healthz`)).status).toBe(200);
    });
  }
});
