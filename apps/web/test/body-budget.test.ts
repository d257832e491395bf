import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, type RawResponse } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";
import { stallUpload, type StalledUpload } from "./upload-client.js";

// MAX_BUFFERED_BODY_BYTES bounds what request bodies hold in memory at once, taken as bytes
// arrive (an open upload is charged 16 KiB up front, or its declared length when less), in two
// slices: captures, and the dashboard's and API's own routes, part of which anonymous requests
// cannot use. One address and one endpoint hold at most their caps (an /api/v1 key's team
// instead of its address), and uploads that fall behind the minimum rate are closed. Addresses come from X-Forwarded-For
// (TRUST_PROXY), as the server reads them behind a proxy; the rate is checked on a test clock.

const KIB = 1024;
const MAX_PAYLOAD = 256 * KIB;
const OPENING = 16 * KIB;
const PER_ADDRESS = 512 * KIB;
const PER_ENDPOINT = 768 * KIB;
const GRACE_MS = 10_000;
const DASHBOARD_SLICE = 2048 * KIB;
/** What anonymous bodies may hold of the dashboard's slice: the other 512 KiB is kept for signed-in and API-key requests. */
const ANONYMOUS = 1536 * KIB;
const PASSWORD = "a long enough password";

let t: TestServer;
let clock = Date.now();
let owner: DashboardClient;
let apiKey: string;
const slugs: Record<"attacked" | "fill1" | "fill2" | "fill3", string> = { attacked: "", fill1: "", fill2: "", fill3: "" };
/** Another tenant's endpoint (the test server's own user). */
let otherTenant: string;

beforeAll(async () => {
  t = await startTestServer(
    {
      MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD),
      MAX_BUFFERED_BODY_BYTES: String(4096 * KIB),
      DASHBOARD_BUFFERED_BODY_BYTES: String(DASHBOARD_SLICE),
      DASHBOARD_ANONYMOUS_BUFFERED_BODY_BYTES: String(ANONYMOUS),
      CAPTURE_BUFFERED_BODY_BYTES_PER_ADDRESS: String(PER_ADDRESS),
      CAPTURE_BUFFERED_BODY_BYTES_PER_ENDPOINT: String(PER_ENDPOINT),
      TRUST_PROXY: "true",
      API_RATE_LIMIT_PER_MINUTE: "10000",
    },
    undefined,
    { now: () => clock },
  );
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "budget@example.com", password: PASSWORD })).status).toBe(303);
  apiKey = ((await owner.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
  for (const name of Object.keys(slugs) as Array<keyof typeof slugs>) slugs[name] = (await apiWrite(name)).slug;
  otherTenant = (await t.createEndpoint("Another tenant")).slug;
});
afterAll(() => t?.close());

const captures = () => t.rehook.bodyBudget.usage("capture");

function apiWrite(name: string): Promise<{ status: number; slug: string }> {
  return fetch(`${t.rehook.url}/api/v1/endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  }).then(async (response) => ({ status: response.status, slug: ((await response.json()) as { slug: string }).slug }));
}

function capture(slug: string, from: string, bytes: number): Promise<Response> {
  return fetch(`${t.rehook.url}/api/webhook/${slug}`, { method: "POST", headers: { "x-forwarded-for": from }, body: Buffer.alloc(bytes, 0x62) });
}

/** A capture that declares `declared` bytes, sends `sent` of them, and stalls. */
function stall(slug: string, from: string, declared: number, sent = 1): Promise<StalledUpload> {
  return stallUpload(t.rehook.url, head("POST", `/api/webhook/${slug}`, [["X-Forwarded-For", from], ["Content-Length", String(declared)]]), Buffer.alloc(sent, 0x61));
}

/** An /api/v1 write, a log-in and a tRPC mutation: the operator's and API clients' writes. */
async function dashboardWrites() {
  const [api, login, trpc] = await Promise.all([
    apiWrite("Written meanwhile"),
    new DashboardClient(t.rehook.url).postForm("/login", { email: "budget@example.com", password: PASSWORD }),
    owner.mutate("apiKeys.create", { name: "made meanwhile" }),
  ]);
  expect(api.status).toBe(201);
  expect(login.status).toBe(303);
  expect(trpc.status).toBe(200);
}

/** Those, and another tenant's capture from `from`: each must get through whatever one attacker does. */
async function everyoneElseWrites(from: string) {
  const [other] = await Promise.all([capture(otherTenant, from, 200 * KIB), dashboardWrites()]);
  expect(other.status, await other.clone().text()).toBe(200);
}

function expectError(answer: RawResponse, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.connection).toBe("close");
  expect(JSON.parse(answer.body)).toMatchObject({ error: { code, message: expect.any(String) } });
}

/** The uploads' answers, once each is sent and its connection closed. */
const settled = (uploads: StalledUpload[]) => Promise.all(uploads.map((upload) => upload.answer));

describe("the body budget", () => {
  it("50 stalled uploads from one address hold at most its cap and deny nobody, then are closed for their rate and give every byte back", async () => {
    // The attack as it was measured, scaled: 30 uploads declaring the largest body, then 20
    // more declaring half as much each time down to 16 bytes, one byte sent by each.
    const attacker = "203.0.113.66";
    const declared = [...Array<number>(30).fill(MAX_PAYLOAD), ...Array.from({ length: 20 }, (_, i) => Math.max(16, MAX_PAYLOAD / 2 ** (i + 1)))];
    const stalled: StalledUpload[] = [];
    for (const length of declared) stalled.push(await stall(slugs.attacked, attacker, length));
    const heldAtOnce = PER_ADDRESS / OPENING;
    await waitFor(() => stalled.filter((upload) => upload.answered()).length >= declared.length - heldAtOnce, "the uploads past the address's cap to be answered");

    // Meanwhile another tenant's capture, an /api/v1 write, a log-in and a tRPC mutation all succeed.
    await everyoneElseWrites("198.51.100.7");

    // The address holds its cap and no more; the rest were answered 429 without waiting for their bodies.
    const refused = stalled.filter((upload) => upload.answered());
    const held = stalled.filter((upload) => !upload.answered());
    expect(held).toHaveLength(heldAtOnce);
    expect(captures().address(attacker)).toBe(PER_ADDRESS);
    for (const answer of await settled(refused)) {
      expectError(answer, 429, "rate_limited");
      expect(answer.headers["retry-after"]).toBe("5");
    }

    // A second address on the same endpoint stops at the endpoint's cap (503), and may still send to another endpoint.
    const second = "203.0.113.77";
    const more: StalledUpload[] = [];
    for (let i = 0; i < (PER_ENDPOINT - PER_ADDRESS) / OPENING + 1; i += 1) more.push(await stall(slugs.attacked, second, MAX_PAYLOAD));
    await waitFor(() => more.filter((upload) => upload.answered()).length === 1, "the upload past the endpoint's cap to be answered");
    expect(captures().target(slugs.attacked)).toBe(PER_ENDPOINT);
    const [overEndpoint] = await settled(more.filter((upload) => upload.answered()));
    expectError(overEndpoint!, 503, "unavailable");
    expect(overEndpoint!.body).toContain("This capture URL is receiving too many request bodies");
    expect((await capture(otherTenant, second, 200 * KIB)).status).toBe(200);

    // A sender that hangs up gives its bytes back at once.
    const secondHeld = more.filter((upload) => !upload.answered());
    for (const upload of secondHeld.splice(0, 4)) upload.socket.destroy();
    await waitFor(() => captures().address(second) === secondHeld.length * OPENING, "the hung-up uploads' bytes to be given back");

    // An upload that keeps up the minimum rate stays open past the grace: 12 KiB earns it 12 s more.
    const steady = await stall(otherTenant, "192.0.2.10", 64 * KIB, 12 * KIB);

    // Past the grace, every trickling upload is closed with 408 and a JSON error.
    clock += GRACE_MS + 1_000;
    const trickling = [...held, ...secondHeld];
    for (const answer of await settled(trickling)) expectError(answer, 408, "request_timeout");
    expect(steady.answered()).toBe(false);
    steady.socket.write(Buffer.alloc(52 * KIB, 0x61));
    expect((await steady.answer).status).toBe(200);

    // Nothing leaks: the budget is back to zero and forgets every address and endpoint.
    await waitFor(() => t.rehook.bodyBudget.used === 0, "the budget to be given back");
    expect(captures().keys).toBe(0);
    expect(t.rehook.bodyBudget.usage("dashboard").keys).toBe(0);
  });

  it("captures that fill their whole slice leave the dashboard's: the API, log-in and tRPC still write", async () => {
    // Four addresses send all but the last byte of two full bodies each, spread under the endpoints' caps.
    const fill = [slugs.fill1, slugs.fill1, slugs.fill1, slugs.fill2, slugs.fill2, slugs.fill2, slugs.fill3, slugs.fill3];
    const almost = await Promise.all(fill.map((slug, i) => stall(slug, `203.0.113.${10 + Math.floor(i / 2)}`, MAX_PAYLOAD, MAX_PAYLOAD - 1)));
    await waitFor(() => captures().used === fill.length * (MAX_PAYLOAD - 1), "the captures' slice to fill");

    // The slice has 8 bytes left: a 1 KiB body (charged its declared length) does not fit.
    const [refused] = await Promise.all([capture(otherTenant, "198.51.100.8", KIB), dashboardWrites()]);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(await refused.json()).toMatchObject({ error: { code: "unavailable", message: expect.stringContaining("too many request bodies") } });

    for (const upload of almost) upload.socket.destroy();
    await waitFor(() => t.rehook.bodyBudget.used === 0, "the budget to be given back");
    expect((await capture(otherTenant, "198.51.100.8", 100 * KIB)).status).toBe(200);
    expect(t.rehook.bodyBudget.used).toBe(0);
  });
});

describe("the dashboard's slice", () => {
  it("holds at most its cap for one address (429), still signs others in, and closes the trickling form posts for their rate", async () => {
    const perAddress = 1024 * KIB; // the default: a quarter of the 2 MiB slice, at least 1 MiB
    const host = new URL(t.rehook.url).host;
    const formHead = (from: string) =>
      head("POST", "/login", [["X-Forwarded-For", from], ["Origin", t.rehook.url], ["Content-Type", "application/x-www-form-urlencoded"], ["Content-Length", String(60 * KIB)]]).replace("Host: localhost", `Host: ${host}`);
    const forms: StalledUpload[] = [];
    for (let i = 0; i < perAddress / OPENING + 1; i += 1) forms.push(await stallUpload(t.rehook.url, formHead("203.0.113.90"), Buffer.from("e")));
    await waitFor(() => forms.filter((upload) => upload.answered()).length === 1, "the form past the address's cap to be answered");
    expect(t.rehook.bodyBudget.usage("dashboard").address("203.0.113.90")).toBe(perAddress);
    const held = forms.filter((upload) => !upload.answered());
    const [overCap] = await settled(forms.filter((upload) => upload.answered()));
    expectError(overCap!, 429, "rate_limited");
    expect((await new DashboardClient(t.rehook.url).postForm("/login", { email: "budget@example.com", password: PASSWORD })).status).toBe(303);

    clock += GRACE_MS + 1_000;
    for (const answer of await settled(held)) expectError(answer, 408, "request_timeout");
    await waitFor(() => t.rehook.bodyBudget.used === 0, "the budget to be given back");
    expect(t.rehook.bodyBudget.usage("dashboard").keys).toBe(0);
  });
});

describe("the part of the dashboard's slice kept from anonymous requests", () => {
  it("anonymous uploads that fill their share leave room for an /api/v1 write and a signed-in tRPC mutation", async () => {
    // Two addresses open all the log-in form posts their caps allow (1 MiB each), sending one byte each.
    const host = new URL(t.rehook.url).host;
    const formHead = (from: string) =>
      head("POST", "/login", [["X-Forwarded-For", from], ["Origin", t.rehook.url], ["Content-Type", "application/x-www-form-urlencoded"], ["Content-Length", String(60 * KIB)]]).replace("Host: localhost", `Host: ${host}`);
    const perAddress = 1024 * KIB;
    const forms: StalledUpload[] = [];
    for (const from of ["203.0.113.101", "203.0.113.102"]) {
      for (let i = 0; i < perAddress / OPENING; i += 1) forms.push(await stallUpload(t.rehook.url, formHead(from), Buffer.from("e")));
    }
    const dashboard = () => t.rehook.bodyBudget.usage("dashboard");
    // Every upload is held or answered (the refused ones at once, without waiting for their bodies).
    await waitFor(() => dashboard().used + forms.filter((upload) => upload.answered()).length * OPENING === 2 * perAddress, "every form post to be held or refused");

    // An API client's write and a signed-in operator's mutation go through: they may use the part kept from anonymous requests.
    const [api, trpc] = await Promise.all([apiWrite("Written past the anonymous share"), owner.mutate("apiKeys.create", { name: "made past the anonymous share" })]);
    expect(api.status).toBe(201);
    expect(trpc.status).toBe(200);

    // The anonymous share is full; the rest of the slice is not.
    expect(dashboard().anonymous).toBe(ANONYMOUS);
    expect(dashboard().used).toBe(ANONYMOUS);
    const refused = forms.filter((upload) => upload.answered());
    expect(refused).toHaveLength((2 * perAddress - ANONYMOUS) / OPENING);
    for (const answer of await settled(refused)) {
      expectError(answer, 503, "unavailable");
      expect(answer.headers["retry-after"]).toBe("5");
    }
    // Another anonymous log-in waits too: holding the anonymous share is possible, docs/security.md says at what cost.
    const anonymous = await new DashboardClient(t.rehook.url).postForm("/login", { email: "budget@example.com", password: PASSWORD });
    expect(anonymous.status).toBe(503);

    // Small declared bodies get a short grace: the held form posts are closed within seconds.
    clock += 2_000 + 1;
    const held = forms.filter((upload) => !refused.includes(upload));
    for (const answer of await settled(held)) expectError(answer, 408, "request_timeout");
    await waitFor(() => t.rehook.bodyBudget.used === 0, "the budget to be given back");
    expect(dashboard().keys).toBe(0);
  });
});
