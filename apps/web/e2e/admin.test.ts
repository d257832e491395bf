import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventCountMismatches } from "../../../tooling/vitest/src/event-counts.js";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, type Dashboard } from "./fixture.js";

// A server with SIGNUP=invite in a real browser: the sign-up page without a link, an admin
// making an invite link on Settings, signing up with it, the used link refused; then deleting
// one event from its page, the 404 page inside the shell, and a 500 response's colours.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let inviteLink: string;
/** A destination that always answers 500. */
let failingPort: number;
const password = "a long enough password";

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: { failing: (_req, res) => ((res.statusCode = 500), res.end("boom")) },
    env: () => ({ SIGNUP: "invite" }),
  });
  ({ t, page, consoleErrors, shot } = dashboard);
  failingPort = dashboard.sinks.failing.port;
  return dashboard.close;
});
afterAll(() => {
  expect(consoleErrors).toEqual([]);
});

/** The page in light, then dark at phone width (reduced motion: no half-done transitions), then back. */
async function threeShots(name: string) {
  await shot(`${name}-light`);
  await page.emulateMedia({ colorScheme: "dark", reducedMotion: "reduce" });
  await shot(`${name}-dark`);
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(`${name}-phone`);
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "no-preference" });
  await page.setViewportSize({ width: 1280, height: 860 });
}

async function logIn(email: string) {
  await page.goto(`${t.rehook.url}/login`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Endpoints", level: 1 }).waitFor();
}

async function logOut() {
  await page.getByRole("button", { name: "Log out" }).click();
  await page.waitForURL(/\/login/);
}

describe("sign-up by invitation", () => {
  it("shows no form without an invite link, and says how to get one", async () => {
    await page.goto(`${t.rehook.url}/signup`);
    await expect.poll(() => page.getByTestId("signup-refusal").textContent()).toMatch(/by invitation\. Ask an admin/);
    expect(await page.getByLabel("Password").count()).toBe(0);
    await threeShots("signup-invite-only");
  });

  it("lets the admin make a one-time invite link on Settings, listed with its expiry", async () => {
    // The server's first user is its admin; give it a password we know.
    await t.db.query("update users set email = 'admin@example.com' where id = $1", [t.userId]);
    const { hashPassword } = await import("@rehook/auth");
    await t.db.query("update users set password_hash = $2 where id = $1", [t.userId, await hashPassword(password)]);
    await logIn("admin@example.com");
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("heading", { name: "Invites" }).waitFor();
    await page.getByRole("button", { name: "Create invite link" }).click();
    const shown = (await page.getByTestId("new-invite-link").textContent())!.trim();
    expect(shown).toMatch(/\/signup\?invite=[0-9A-Za-z]{32}$/);
    // The link is made on BASE_URL, which a test server on port 0 does not know: same path, the real port.
    const link = new URL(shown);
    inviteLink = `${t.rehook.url}${link.pathname}${link.search}`;
    // The server's admin: the link creates an account, so no note under it.
    expect(await page.getByTestId("new-invite-note").count()).toBe(0);
    const row = page.getByTestId("invite-row").first();
    await expect.poll(() => row.textContent()).toMatch(/Open/);
    await page.getByRole("heading", { name: "Invites" }).scrollIntoViewIfNeeded();
    await threeShots("settings-invites");
    await logOut();
  });

  it("signs up with the link, and refuses it the second time with why", async () => {
    await page.goto(inviteLink);
    await page.getByLabel("Email").fill("invited@example.com");
    await page.getByLabel("Password").fill(password);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Endpoints", level: 1 }).waitFor();
    // An ordinary user's link from their personal team lets no newcomer in while SIGNUP=invite: Settings says so.
    await page.getByTestId("team-switcher").locator("summary").click();
    await page.getByTestId("team-option").filter({ has: page.getByText("invited", { exact: true }) }).click();
    await expect.poll(() => page.getByTestId("current-team").textContent()).toBe("invited");
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("button", { name: "Create invite link" }).click();
    await expect.poll(() => page.getByTestId("new-invite-note").textContent()).toMatch(/adds someone who already has a Rehook account to the team; it cannot create an account/);
    await logOut();

    await page.goto(inviteLink);
    await expect.poll(() => page.getByTestId("signup-refusal").textContent()).toMatch(/already been used/);
    await threeShots("signup-invite-used");
  });
});

describe("housekeeping pages", () => {
  let eventId: string;
  let inboxSlug: string;

  it("labels endpoints with nothing finished yet by why: capture only, or no deliveries yet", async () => {
    await logIn("invited@example.com");
    inboxSlug = (await createEndpoint(page, "Inbox")).slug;
    await createEndpoint(page, "Waiting", `http://127.0.0.1:${failingPort}/later`);
    const inbox = page.getByTestId("endpoint-row").filter({ hasText: "Inbox" });
    expect(await inbox.getByText("Capture only").count()).toBeGreaterThan(0);
    expect(await inbox.getByTestId("counts").count()).toBe(0); // no "0 delivered · 0 failed"
    const waiting = page.getByTestId("endpoint-row").filter({ hasText: "Waiting" });
    expect(await waiting.locator("[data-health]").textContent()).toBe("No deliveries yet");
    await threeShots("endpoint-list-labels");
  });

  it("shows each endpoint's event count and when its last event arrived, exact on hover", async () => {
    const inbox = page.getByTestId("endpoint-row").filter({ hasText: "Inbox" });
    await captureEvent(t.rehook.url, inboxSlug, '{"n":1}');
    const newest = await captureEvent(t.rehook.url, inboxSlug, '{"n":2}');
    const [row] = await t.db.query<{ received_at: Date }>("select received_at from events where id = $1", [newest]);
    await page.reload();

    expect(await inbox.getByTestId("event-count").textContent()).toBe("2 events");
    const last = inbox.getByTestId("last-event").locator("time");
    expect(await inbox.getByTestId("last-event").textContent()).toMatch(/^Last received /);
    expect(await last.getAttribute("datetime")).toBe(row!.received_at.toISOString());
    expect(await last.getAttribute("title")).toBeTruthy();
    const waiting = page.getByTestId("endpoint-row").filter({ hasText: "Waiting" });
    expect(await waiting.getByTestId("event-count").textContent()).toBe("0 events");
    expect(await waiting.getByTestId("last-event").textContent()).toBe("Nothing received yet");
    await threeShots("endpoint-list-events");
  });

  it("colours a 500 response red on the event page, and names 500 in words", async () => {
    const endpoint = await createEndpoint(page, "Orders", `http://127.0.0.1:${failingPort}/in`);
    eventId = await captureEvent(t.rehook.url, endpoint.slug, '{"order":1}');
    await page.goto(`${t.rehook.url}/events/${eventId}`);
    await expect.poll(async () => (await page.getByText("Failed").count()) > 0, { timeout: 15_000 }).toBe(true);
    await page.reload();
    const tab = page.getByRole("tab", { name: /Response/ });
    await tab.click();
    await expect.poll(() => page.locator("[data-http-status='500']").first().textContent()).toMatch(/500\s*Internal Server Error/);
    // The figure on the Response tab is red like the status, not the accent the Headers count keeps.
    const figure = tab.locator(".tab-extra");
    expect(await figure.getAttribute("class")).toContain("tab-extra-fail");
    // The test's types have no DOM: the browser's getComputedStyle is reached through the element's window.
    type Styled = { ownerDocument: { defaultView: { getComputedStyle(element: unknown): { color: string } } } };
    const colourOf = (locator: typeof figure) => locator.evaluate((element) => (element as unknown as Styled).ownerDocument.defaultView.getComputedStyle(element).color);
    expect(await colourOf(figure)).not.toBe(await colourOf(page.getByRole("tab", { name: /Headers/ }).locator(".tab-extra")));
  });

  it("deletes one event after a confirmation, and says so on Activity", async () => {
    await page.getByTestId("delete-event").click();
    const dialog = page.getByRole("dialog", { name: "Delete this event?" });
    await dialog.waitFor();
    await threeShots("event-delete-confirm");
    await dialog.getByTestId("confirm-delete-event").click();
    await page.waitForURL(`${t.rehook.url}/events`);
    await expect.poll(() => page.getByTestId("shell-notice").textContent()).toContain(`Event ${eventId} was deleted`);
    await threeShots("event-deleted-notice");
    expect(await t.db.query("select 1 from events where id = $1", [eventId])).toEqual([]);
    expect(await eventCountMismatches(t.db)).toEqual([]);
    // Shown once: the next page has no notice.
    await page.reload();
    await page.getByRole("heading", { name: "Activity", level: 1 }).waitFor();
    expect(await page.getByTestId("shell-notice").count()).toBe(0);
  });

  it("shows a 404 inside the shell for an unknown URL", async () => {
    const before = consoleErrors.length;
    const response = await page.goto(`${t.rehook.url}/no-such-page`);
    expect(response!.status()).toBe(404);
    // Chromium logs the document's own 404 status as a console error: that one is expected, nothing else.
    expect(consoleErrors.splice(before)).toEqual(["Failed to load resource: the server responded with a status of 404 (Not Found)"]);
    await page.getByTestId("not-found").waitFor();
    expect(await page.getByRole("navigation", { name: "Main" }).count()).toBe(1);
    await threeShots("not-found");
  });
});

