import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { head } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";
import { uploadLargeBody, type UploadResult } from "./upload-client.js";

// A sender whose body is over a route's cap must be able to read the refusal: the server
// answers, then keeps reading and dropping what is still coming (within bounds) before it
// closes, instead of resetting a connection the sender is still writing to.

const MAX_PAYLOAD = 64 * 1024;
// Past every route's cap (the largest is 1 MiB) and past what loopback's socket buffers hold
// unread (about 4 MiB: a reset then reaches a sender still writing), within the lingering bounds.
const OVER = 12 * 1024 * 1024;

let t: TestServer;
let slug: string;
let owner: DashboardClient;
let apiKey: string;
let eventId: string;

beforeAll(async () => {
  t = await startTestServer({ MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD) });
  slug = (await t.createEndpoint("Oversized")).slug;
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "oversized@example.com", password: "a long enough password" })).status).toBe(303);
  apiKey = ((await owner.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
  const endpoint = (await owner.mutate("endpoints.create", { name: "Replayed" })).body.result!.data.json as { slug: string };
  const captured = await fetch(`${t.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: "{}" });
  eventId = ((await captured.json()) as { eventId: string }).eventId;
});
afterAll(() => t.close());

/** A request head addressed to the server's own Host and Origin (the dashboard refuses others). */
function ownHead(method: string, target: string, headers: Array<[string, string]>): string {
  const host = new URL(t.rehook.url).host;
  return head(method, target, [["Origin", t.rehook.url], ...headers]).replace("Host: localhost", `Host: ${host}`);
}

function expectReadableRefusal(result: UploadResult, what: string): void {
  expect(result.status, what).toBe(413);
  expect(result.headers.connection, what).toBe("close");
  expect(JSON.parse(result.body), what).toMatchObject({ error: { code: "payload_too_large", message: expect.any(String) } });
  // The sender was let finish its body: nothing was reset under it.
  expect(result.sent, what).toBe(OVER);
}

describe("a body over the cap ends in a 413 the sender reads", () => {
  it("capture URL, declared Content-Length over MAX_PAYLOAD_BYTES", async () => {
    const result = await uploadLargeBody(t.rehook.url, head("POST", `/api/webhook/${slug}`, [["Content-Length", String(OVER)]]), { bodyBytes: OVER });
    expectReadableRefusal(result, "declared");
  });

  it("capture URL, a chunked body that grows past MAX_PAYLOAD_BYTES", async () => {
    const result = await uploadLargeBody(t.rehook.url, head("POST", `/api/webhook/${slug}`, [["Transfer-Encoding", "chunked"]]), { bodyBytes: OVER, chunked: true });
    expectReadableRefusal(result, "chunked");
  });

  it("the dashboard's and the API's capped routes, declared and chunked", async () => {
    const session: Array<[string, string]> = [["Cookie", owner.cookie!]];
    const routes: Array<{ name: string; target: string; headers: Array<[string, string]> }> = [
      { name: "/trpc", target: "/trpc/endpoints.create", headers: [...session, ["Content-Type", "application/json"]] },
      { name: "replay route", target: `/api/events/${eventId}/replay`, headers: [...session, ["Content-Type", "application/json"]] },
      { name: "dashboard form", target: "/login", headers: [["Content-Type", "application/x-www-form-urlencoded"]] },
      { name: "/api/v1", target: "/api/v1/endpoints", headers: [["Authorization", `Bearer ${apiKey}`], ["Content-Type", "application/json"]] },
    ];
    for (const route of routes) {
      const declared = await uploadLargeBody(t.rehook.url, ownHead("POST", route.target, [...route.headers, ["Content-Length", String(OVER)]]), { bodyBytes: OVER });
      expectReadableRefusal(declared, `${route.name}, declared`);
      const chunked = await uploadLargeBody(t.rehook.url, ownHead("POST", route.target, [...route.headers, ["Transfer-Encoding", "chunked"]]), { bodyBytes: OVER, chunked: true });
      expectReadableRefusal(chunked, `${route.name}, chunked`);
    }
  });
});
