import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../test/test-server.js";
import { createEndpoint, openDashboard, signUp } from "./fixture.js";

// A tenant's custom response opened by a logged-in user in a real browser, on the dashboard's
// own origin: the response was written straight into the database (as an old or hostile row
// would be, past the checks at save) as HTML whose script uses the visitor's session to make
// an API key and leave marks on the origin. The browser must treat it as inert text.

let t: TestServer;
let page: Page;

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page } = dashboard);
  return dashboard.close;
});

/** What the hostile page runs: marks the origin (title, storage), then makes an API key named `mark` with the visitor's session. */
const attack = (mark: string) => `
  document.title = ${JSON.stringify(mark)};
  try { localStorage.setItem(${JSON.stringify(mark)}, "ran"); } catch {}
  fetch("/trpc/apiKeys.create", {
    method: "POST",
    credentials: "include",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ json: { name: ${JSON.stringify(mark)} } }),
  });
`;

const keysNamed = async (name: string) => (await t.db.query("select 1 from api_keys where name = $1", [name])).length;

describe("a custom response on the dashboard's origin", () => {
  it("runs no script, even when saved as text/html with a script past the checks at save", async () => {
    await signUp(page, t.rehook.url, "victim@example.com");
    const endpoint = await createEndpoint(page, "Hostile");
    const [session] = (await page.context().cookies(t.rehook.url)).filter((cookie) => cookie.name === "rehook_session");
    expect(session).toBeDefined();

    // The control: the same script run by the origin itself does make a key with this session.
    await page.evaluate(attack("control"));
    await expect.poll(() => keysNamed("control")).toBe(1);

    const hostile = {
      status: 200,
      headers: { "Content-Type": "text/html; charset=utf-8", "Set-Cookie": "rehook_session=attacker; Path=/", "Service-Worker-Allowed": "/" },
      body: `<!doctype html><title>hostile</title><h1>Hostile</h1><script>${attack("stolen")}</script>`,
      delayMs: 0,
    };
    await t.db.query("update endpoints set custom_response = $1 where id = $2", [JSON.stringify(hostile), endpoint.id]);

    const titleBefore = await page.goto(`${t.rehook.url}/`).then(() => page.title());
    // goto resolves on the load event: an inline script would have run by then.
    const answer = await page.goto(`${t.rehook.url}/api/webhook/${endpoint.slug}`);
    expect(await page.title()).not.toBe("stolen");
    expect(answer!.status()).toBe(200);
    expect(answer!.headers()["content-security-policy"]).toBe("default-src 'none'; sandbox");
    expect(answer!.headers()["set-cookie"]).toBeUndefined();

    // Shown as text, in a sandbox of its own (an opaque origin, no storage), and nothing ran.
    expect(await page.evaluate<string>("document.contentType")).toBe("text/plain");
    expect(await page.evaluate<string>("document.body.innerText")).toContain("<script>");
    expect(await page.evaluate<string>("window.origin")).toBe("null");
    expect(await keysNamed("stolen")).toBe(0);

    // Back on the dashboard: same session, nothing left in the origin's storage, no service worker.
    await page.goto(`${t.rehook.url}/`);
    await page.getByRole("heading", { name: "Endpoints" }).waitFor();
    expect(await page.title()).toBe(titleBefore);
    expect(await page.evaluate<string | null>('localStorage.getItem("stolen")')).toBeNull();
    expect(await page.evaluate<number>("navigator.serviceWorker.getRegistrations().then((registrations) => registrations.length)")).toBe(0);
    const [after] = (await page.context().cookies(t.rehook.url)).filter((cookie) => cookie.name === "rehook_session");
    expect(after!.value).toBe(session!.value);

    // The visit was captured like any request, without the visitor's session cookie.
    const [stored] = await t.db.query<{ headers: unknown }>("select headers from events where endpoint_id = $1", [endpoint.id]);
    expect(JSON.stringify(stored!.headers)).not.toContain(session!.value);
  });
});
