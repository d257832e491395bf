import { createHmac } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../test/test-server.js";
import { createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// Ingress control in a real browser: a custom answer to senders, a provider handshake and a
// GitHub signature check set up on the endpoint page, then requests sent to the capture URL,
// and what the Activity feed, its Signature filter and the event page show of them.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot } = dashboard);
  return dashboard.close;
});

const GITHUB_SECRET = "gh-webhook-secret-c0ffee42";
const META_TOKEN = "meta-verify-token-7731";

const rows = (target: Page) => target.locator('[data-testid="event-row"]');
const rowIds = (target: Page) => rows(target).evaluateAll((elements) => elements.map((element) => element.getAttribute("data-event-id")));
/** Each row's signature badge (null: none), by event id. */
const rowSignatures = (target: Page) =>
  rows(target).evaluateAll((elements) =>
    Object.fromEntries(elements.map((element) => [element.getAttribute("data-event-id"), element.querySelector('[data-testid="signature-badge"]')?.getAttribute("data-signature") ?? null])),
  );

describe("ingress settings on the endpoint page", () => {
  let endpoint = { slug: "", id: "" };
  const captureUrl = () => `${t.rehook.url}/api/webhook/${endpoint.slug}`;
  const send = (body: string, headers: Record<string, string> = {}) => fetch(captureUrl(), { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

  it("saves a custom response in the UI, and the capture URL answers with it", async () => {
    await signUp(page, t.rehook.url, "ingress@example.com");
    endpoint = await createEndpoint(page, "Ingress");
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const form = page.getByTestId("response-form");
    await form.getByRole("radio", { name: /Custom response/ }).check();
    await form.getByLabel("Status", { exact: true }).fill("202");
    await form.getByRole("button", { name: "Add header" }).click();
    await form.getByLabel("Header 1 name").fill("X-Handled-By");
    await form.getByLabel("Header 1 value").fill("rehook-tests");
    await form.getByLabel("Body", { exact: true }).fill('{"accepted":"{{event_id}}"}');
    await form.getByRole("button", { name: "Save response" }).click();
    await form.getByRole("status").filter({ hasText: "Response saved" }).waitFor();
    // The saved form starts from what is stored.
    expect(await form.getByLabel("Header 1 name").inputValue()).toBe("X-Handled-By");

    const response = await send('{"hello":"world"}');
    expect(response.status).toBe(202);
    expect(response.headers.get("x-handled-by")).toBe("rehook-tests");
    const { accepted } = (await response.json()) as { accepted: string };
    // The placeholder became the stored event's id.
    await page.goto(`${t.rehook.url}/events?endpointId=${endpoint.id}`);
    await expect.poll(() => rowIds(page)).toEqual([accepted]);
    // No signature check yet: no badge.
    expect(await rowSignatures(page)).toEqual({ [accepted]: null });
  });

  it("shows the server's message for an invalid status, and keeps what was typed", async () => {
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const form = page.getByTestId("response-form");
    await form.getByLabel("Status", { exact: true }).fill("700");
    await form.getByRole("button", { name: "Save response" }).click();
    const alert = form.getByRole("alert");
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/599/);
    expect(await form.getByLabel("Status", { exact: true }).inputValue()).toBe("700");
    // The saved answer is unchanged.
    expect((await send("{}")).status).toBe(202);
  });

  it("answers Meta's handshake once its verify token is saved, and never shows the token", async () => {
    const form = page.getByTestId("handshake-form");
    await form.getByLabel("Provider").selectOption("meta");
    await form.getByRole("button", { name: "Save handshake" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toMatch(/verify token/);

    await form.getByLabel("Verify token").fill(META_TOKEN);
    await form.getByRole("button", { name: "Save handshake" }).click();
    await form.getByRole("status").filter({ hasText: "Handshake saved" }).waitFor();
    expect(await form.getByTestId("handshake-token-set").textContent()).toBe("Token set · ends in 7731");
    expect(await form.getByLabel("Verify token").inputValue()).toBe("");
    expect(await page.content()).not.toContain(META_TOKEN);

    const challenge = await fetch(`${captureUrl()}?hub.mode=subscribe&hub.verify_token=${META_TOKEN}&hub.challenge=1158201444`);
    expect(challenge.status).toBe(200);
    expect(await challenge.text()).toBe("1158201444");
    expect((await fetch(`${captureUrl()}?hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1158201444`)).status).toBe(403);
  });

  it("sets up a GitHub signature check with its secret, then shows only its last four characters", async () => {
    const form = page.getByTestId("verification-form");
    await form.getByLabel("Scheme").selectOption("github");
    await form.getByLabel("Secret", { exact: true }).fill(GITHUB_SECRET);
    await form.getByRole("button", { name: "Save verification" }).click();
    await form.getByRole("status").filter({ hasText: "Verification saved" }).waitFor();
    expect(await form.getByTestId("verification-secret-set").textContent()).toBe("Secret set · ends in ee42");
    expect(await form.getByLabel("Secret", { exact: true }).inputValue()).toBe("");
    expect(await page.content()).not.toContain(GITHUB_SECRET);
    await shot("ingress-settings");

    // After a reload too: the page never has the secret.
    await page.reload();
    await page.getByTestId("verification-secret-set").waitFor();
    expect(await page.content()).not.toContain(GITHUB_SECRET);
  });

  describe("signed, wrongly signed and unsigned requests", () => {
    const ids = { valid: "", invalid: "", missing: "" };

    const body = '{"action":"opened","number":19}';
    const signature = createHmac("sha256", GITHUB_SECRET).update(body).digest("hex");

    it("captures the three", async () => {
      const eventId = async (response: Response) => {
        expect(response.status).toBe(202);
        return ((await response.json()) as { accepted: string }).accepted;
      };
      ids.valid = await eventId(await send(body, { "X-GitHub-Event": "issues", "X-Hub-Signature-256": `sha256=${signature}` }));
      ids.invalid = await eventId(await send(body, { "X-GitHub-Event": "issues", "X-Hub-Signature-256": `sha256=${"0".repeat(64)}` }));
      ids.missing = await eventId(await send(body, { "X-GitHub-Event": "issues" }));
    });

    it("shows a badge for each in the feed", async () => {
      await page.goto(`${t.rehook.url}/events?endpointId=${endpoint.id}`);
      await expect.poll(() => rowIds(page)).toEqual(expect.arrayContaining([ids.valid, ids.invalid, ids.missing]));
      const signatures = await rowSignatures(page);
      expect({ valid: signatures[ids.valid], invalid: signatures[ids.invalid], missing: signatures[ids.missing] }).toEqual({ valid: "valid", invalid: "invalid", missing: "missing" });
      const badge = (id: string) => rows(page).and(page.locator(`[data-event-id="${id}"]`)).getByTestId("signature-badge");
      expect(await badge(ids.valid).textContent()).toBe("Signed");
      expect(await badge(ids.invalid).textContent()).toBe("Invalid signature");
      expect(await badge(ids.missing).textContent()).toBe("Unsigned");
      expect(await badge(ids.invalid).getAttribute("title")).toMatch(/invalid/i);
    });

    it("filters the feed to invalid signatures, and the export follows", async () => {
      await page.getByLabel("Signature", { exact: true }).selectOption("invalid");
      await page.waitForURL(/[?&]signature=invalid/);
      await expect.poll(() => rowIds(page)).toEqual([ids.invalid]);
      const exportHref = await page.getByRole("link", { name: "Export NDJSON" }).getAttribute("href");
      expect(new URL(exportHref!, t.rehook.url).searchParams.get("signature")).toBe("invalid");
      // The filter is kept from the URL.
      await page.reload();
      expect(await page.getByLabel("Signature", { exact: true }).inputValue()).toBe("invalid");
      await expect.poll(() => rowIds(page)).toEqual([ids.invalid]);

      // Live rows follow the filter: a valid one stays out, an invalid one comes in.
      await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
      await send(body, { "X-Hub-Signature-256": `sha256=${signature}` });
      const another = ((await (await send(body, { "X-Hub-Signature-256": "sha256=bad" })).json()) as { accepted: string }).accepted;
      await expect.poll(() => rowIds(page)).toEqual([another, ids.invalid]);
    });

    it("shows the badge on the event page", async () => {
      await page.goto(`${t.rehook.url}/events/${ids.valid}`);
      const badge = page.locator(".page-header").getByTestId("signature-badge");
      await badge.waitFor();
      expect(await badge.getAttribute("data-signature")).toBe("valid");
      expect(await badge.textContent()).toBe("Signed");
    });
  });

  it("resets the response to the default answer", async () => {
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const form = page.getByTestId("response-form");
    await form.getByRole("button", { name: "Reset to default" }).click();
    await form.getByRole("status").filter({ hasText: "Back to the default answer" }).waitFor();
    // The form starts again from what is stored, once the page's data is reloaded.
    await expect.poll(() => form.getByRole("radio", { name: /Default answer/ }).isChecked()).toBe(true);
    const response = await send("{}");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { received: boolean }).received).toBe(true);
  });

  it("logged no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});
