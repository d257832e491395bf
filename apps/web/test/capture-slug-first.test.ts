import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteEndpoint } from "@rehook/services";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";
import { uploadLargeBody } from "./upload-client.js";

// A capture's slug is looked up before its body is read: a made-up or deleted slug is answered
// 404 without taking the body in, and the sender still reads that answer.

const MAX_PAYLOAD = 1024 * 1024;
// Within the cap, so only the slug can refuse it before it arrives.
const BODY = 900 * 1024;
// How long the sender waits for an answer before it sends the body anyway.
const ANSWER_WITHIN_MS = 2_000;

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD) });
});
afterAll(() => t.close());

const storedCount = async (slug: string) =>
  Number((await t.db.query<{ n: string }>("select count(*) as n from events e join endpoints p on p.id = e.endpoint_id where p.slug = $1", [slug]))[0]!.n);

describe("the slug is looked up before the body is read", () => {
  it("answers a made-up slug 404 before any body byte arrives, declared or chunked, and lets the sender finish", async () => {
    const framings: Array<[string, [string, string]]> = [
      ["declared", ["Content-Length", String(BODY)]],
      ["chunked", ["Transfer-Encoding", "chunked"]],
    ];
    for (const [name, framing] of framings) {
      const result = await uploadLargeBody(t.rehook.url, head("POST", `/api/webhook/made-up-${name}-abcd1234`, [framing]), {
        bodyBytes: BODY,
        chunked: name === "chunked",
        answerFirstWithinMs: ANSWER_WITHIN_MS,
      });
      expect(result.status, name).toBe(404);
      expect(result.answeredBeforeBody, name).toBe(true);
      expect(result.headers.connection, name).toBe("close");
      expect(JSON.parse(result.body), name).toMatchObject({ error: { code: "not_found" } });
      expect(result.sent, name).toBe(BODY);
    }
  });

  it("still takes a known slug's body (the answer waits for it)", async () => {
    const { slug } = await t.createEndpoint("Known");
    const result = await uploadLargeBody(t.rehook.url, head("POST", `/api/webhook/${slug}`, [["Content-Length", String(BODY)]]), { bodyBytes: BODY, answerFirstWithinMs: 100 });
    expect(result.status).toBe(200);
    expect(result.answeredBeforeBody).toBe(false);
    expect(await storedCount(slug)).toBe(1);
  });

  it("answers a deleted endpoint's slug 404 at once, and before its body once the deletion is announced", async () => {
    const endpoint = await t.createEndpoint("Deleted soon");
    const first = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${endpoint.slug}`, [["Content-Length", "2"]]), "{}"]);
    expect(first.status).toBe(200);
    await deleteEndpoint({ orm: t.rehook.database.orm }, { teamId: t.teamId, endpoint: { id: endpoint.id } });

    // The capture statement refuses it right away, remembered as known or not.
    const right = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${endpoint.slug}`, [["Content-Length", "2"]]), "{}"]);
    expect(right.status).toBe(404);

    // Once the event bus has told this instance, the body is not even read.
    await waitFor(async () => {
      const result = await uploadLargeBody(t.rehook.url, head("POST", `/api/webhook/${endpoint.slug}`, [["Content-Length", String(BODY)]]), {
        bodyBytes: BODY,
        answerFirstWithinMs: 200,
      });
      expect(result.status).toBe(404);
      return result.answeredBeforeBody;
    }, "the deleted slug to be refused before its body");
  });
});
