import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Edit-and-replay through the dashboard's session route over real HTTP (cookie and Origin).
// What an edit sends, what is refused and how signing covers it are the use case's own:
// packages/services/test/replays.test.ts.

let t: TestServer;
let sink: Sink;
let owner: DashboardClient;
let endpoint: { id: string; slug: string };
let eventId: string;

const original = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x00, 0xff]); // JSON-ish, then NUL and invalid UTF-8

async function capture(slug: string, body: Buffer, headers: Array<[string, string]>): Promise<string> {
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [...headers, ["Content-Length", String(body.length)]]), body]);
  expect(response.status).toBe(200);
  const id = JSON.parse(response.body).eventId as string;
  await waitFor(async () => (await t.db.query<{ status: string }>("select status from events where id = $1", [id]))[0]?.status === "delivered", `event ${id} delivered`);
  return id;
}

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  sink = await startSink((_req, res) => res.end("ok"));
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "editor@example.com", password: "a long enough password" })).status).toBe(303);
  endpoint = (await owner.mutate("endpoints.create", { name: "edits", destinationUrl: `http://127.0.0.1:${sink.port}/in` })).body.result!.data.json as { id: string; slug: string };
  eventId = await capture(endpoint.slug, original, [["Content-Type", "application/json"]]);
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

describe("edit-and-replay on the session route (POST /api/events/{id}/replay)", () => {
  it("takes the same overrides as the API, and refuses a bad one with 400", async () => {
    const text = '{"signed":"edit"}';
    const response = await fetch(new URL(`/api/events/${eventId}/replay`, owner.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", origin: owner.baseUrl, cookie: owner.cookie! },
      body: JSON.stringify({ environment: "original", overrides: { headers: [["Content-Type", "application/json"]], body: text } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "delivered", modified: true });
    expect(sink.received.at(-1)!.body.toString()).toBe(text);

    const bad = await fetch(new URL(`/api/events/${eventId}/replay`, owner.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", origin: owner.baseUrl, cookie: owner.cookie! },
      body: JSON.stringify({ environment: "original", overrides: { headers: [["X-A", "a\rb"]] } }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("validation_failed");
  });
});
