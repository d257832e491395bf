import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// The procedures themselves are tested through createCaller in packages/api/test; here, that the
// real server builds their context from the request: the session from the cookie, the
// cross-site facts from its headers.

let t: TestServer;
let alice: DashboardClient;

const data = <T>(envelope: { body: { result?: { data: { json: unknown } } } }) => envelope.body.result!.data.json as T;

beforeAll(async () => {
  t = await startTestServer();
  alice = new DashboardClient(t.rehook.url);
  expect((await alice.postForm("/signup", { email: "alice@example.com", password: "a long enough password" })).status).toBe(303);
});
afterAll(() => t.close());

describe("tRPC procedures", () => {
  it("refuses a mutation sent as text/plain with a valid cookie, and one from a foreign Origin", async () => {
    const plain = await alice.mutate("endpoints.create", { name: "sneaky" }, { "content-type": "text/plain" });
    expect(plain.status).toBe(415);
    const foreign = await alice.mutate("endpoints.create", { name: "sneaky" }, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error!.json.message).toBe("This cross-site request was refused. Send it from the dashboard itself.");
    const names = data<Array<{ name: string }>>(await alice.query("endpoints.list")).map((e) => e.name);
    expect(names).not.toContain("sneaky");
  });

  it("answers 401 without a session", async () => {
    const anonymous = new DashboardClient(t.rehook.url);
    const response = await anonymous.query("endpoints.list");
    expect(response.status).toBe(401);
  });
});
