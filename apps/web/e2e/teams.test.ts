import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { launchBrowser, type Browser } from "./browser.js";
import { captureEvent, createEndpoint, openDashboard, signUp, waitForHydration, type Dashboard } from "./fixture.js";

// Teams in a real browser: the switcher (a second team of one's own, the choice kept across a
// reload), Settings → Members, an invite accepted in a second browser, a role change that the
// invited member's dashboard obeys, and removing them.

let t: TestServer;
let sink: Sink;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let watch: Dashboard["watch"];
/** The invited member's own browser (cookies of its own). */
let second: Browser | undefined;
let member: Page;

const VIEWER_REASON = "Needs the developer role; you are a viewer.";

beforeAll(async () => {
  const dashboard = await openDashboard({ sinks: { sink: (_req, res) => res.end("ok") } });
  ({ t, page, consoleErrors, shot, watch, sinks: { sink } } = dashboard);
  return dashboard.close;
});
afterAll(async () => {
  await second?.close();
  expect(consoleErrors).toEqual([]);
});

const currentTeam = (target: Page) => target.getByTestId("current-team").textContent();

/** Opens the team switcher's menu. */
async function openSwitcher(target: Page) {
  await target.getByTestId("team-switcher").locator("summary").click();
  await target.getByRole("button", { name: /Create team/ }).waitFor();
}

async function switchTo(target: Page, name: string) {
  await openSwitcher(target);
  await target.getByTestId("team-option").filter({ has: target.getByText(name, { exact: true }) }).click();
  await expect.poll(() => currentTeam(target)).toBe(name);
}

const memberRow = (email: string) => page.getByTestId("member-row").filter({ hasText: email });

describe("the team switcher", () => {
  it("shows the personal team the owner got at sign-up", async () => {
    await signUp(page, t.rehook.url, "owner@example.com");
    expect(await currentTeam(page)).toBe("owner");
    const { slug } = await createEndpoint(page, "Payments hook", `http://127.0.0.1:${sink.port}/in`);
    await captureEvent(t.rehook.url, slug, '{"type":"charge.succeeded"}');
  });

  it("creates a second team, which starts empty", async () => {
    await openSwitcher(page);
    await page.getByLabel("New team").fill("Second <b>team</b>");
    await page.getByRole("button", { name: "Create team" }).click();
    await expect.poll(() => page.getByTestId("shell-notice").textContent()).toContain("Team “Second <b>team</b>” created");
    // The name is text, never markup.
    expect(await currentTeam(page)).toBe("Second <b>team</b>");
    expect(await page.locator(".team-switcher b").count()).toBe(0);
    await page.getByRole("heading", { name: "Create your first endpoint" }).waitFor();
    expect(await page.getByTestId("endpoint-row").count()).toBe(0);
    await openSwitcher(page);
    expect(await page.getByTestId("team-option").allTextContents()).toEqual([expect.stringMatching(/^Oowner\s*Owner · personal/), expect.stringMatching(/^SSecond <b>team<\/b>\s*Owner/)]);
    await shot("team-switcher-open", { fullPage: false });
    await page.keyboard.press("Escape");
  });

  it("keeps the choice across a reload, and switching back shows the first team's endpoints", async () => {
    await page.reload();
    expect(await currentTeam(page)).toBe("Second <b>team</b>");
    expect(await page.getByTestId("endpoint-row").count()).toBe(0);

    await switchTo(page, "owner");
    await page.getByTestId("endpoint-row").filter({ hasText: "Payments hook" }).waitFor();
    await page.reload();
    expect(await currentTeam(page)).toBe("owner");
    expect(await page.getByTestId("endpoint-row").count()).toBe(1);
  });

  it("fits a phone's width with the switcher in the top bar", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const fits = (selector: string) => page.locator(selector).evaluate((element) => element.scrollWidth <= element.clientWidth);
    await expect.poll(() => fits("html")).toBe(true);
    expect(await fits(".topbar-inner")).toBe(true);
    expect(await page.getByTestId("current-team").isVisible()).toBe(true);
    await openSwitcher(page);
    await shot("team-switcher-phone", { fullPage: false });
    await page.keyboard.press("Escape");
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("stays on the same section when switching from a list page", async () => {
    await page.getByRole("link", { name: "Activity", exact: true }).click();
    await page.getByTestId("event-row").first().waitFor();
    await switchTo(page, "Second <b>team</b>");
    expect(new URL(page.url()).pathname).toBe("/events");
    expect(await page.getByTestId("event-row").count()).toBe(0);
    await switchTo(page, "owner");
    await page.getByTestId("event-row").first().waitFor();
  });
});

describe("members and invites", () => {
  let inviteLink = "";

  it("lists the owner on Settings → Members", async () => {
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("heading", { name: "Members" }).waitFor();
    expect(await page.getByTestId("team-name").textContent()).toBe("owner");
    const owner = memberRow("owner@example.com");
    expect(await owner.getAttribute("data-role")).toBe("owner");
    expect(await owner.textContent()).toContain("you");
    // Active just now (this page's own requests): not "never".
    expect(await owner.getByTestId("member-last-active").textContent()).not.toBe("never");
    // The only owner: no Remove on their own row, and Leave is refused with why.
    expect(await owner.getByRole("button", { name: "Remove" }).count()).toBe(0);
  });

  it("refuses to let the last owner leave, and says why", async () => {
    await page.getByRole("button", { name: "Leave team" }).click();
    const dialog = page.getByRole("dialog", { name: "Leave “owner”?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Leave team" }).click();
    await expect.poll(() => page.getByRole("alert").allTextContents()).toContainEqual(expect.stringContaining("A team always keeps at least one owner"));
    expect(await currentTeam(page)).toBe("owner");
  });

  it("makes an invite link for a developer, listed with its role and creator", async () => {
    await page.locator("#invites").scrollIntoViewIfNeeded();
    await page.locator("#invite-role").selectOption("developer");
    await page.getByRole("button", { name: "Create invite link" }).click();
    const shown = (await page.getByTestId("new-invite-link").textContent())!.trim();
    expect(shown).toMatch(/\/signup\?invite=[0-9A-Za-z]{32}$/);
    // Made on BASE_URL, which a test server on port 0 does not know: same path, the real port.
    const link = new URL(shown);
    inviteLink = `${t.rehook.url}${link.pathname}${link.search}`;
    const row = page.getByTestId("invite-row").first();
    expect(await row.getByTestId("invite-role").textContent()).toBe("Developer");
    expect(await row.textContent()).toContain("owner@example.com");
    expect(await row.textContent()).toContain("Open");
  });

  it("signs the invited developer up in another browser, into the owner's team", async () => {
    second = await launchBrowser();
    member = await second.context.newPage();
    watch(member);
    await member.goto(inviteLink);
    await member.getByLabel("Email").fill("dev@example.com");
    await member.getByLabel("Password").fill("a long enough password");
    await member.getByRole("button", { name: "Create account" }).click();
    await member.getByRole("heading", { name: "Endpoints", level: 1 }).waitFor();
    expect(await currentTeam(member)).toBe("owner");
    await member.getByTestId("endpoint-row").filter({ hasText: "Payments hook" }).waitFor();
    // A developer makes a key for the team (revoked when they are removed).
    await member.getByRole("link", { name: "Settings", exact: true }).click();
    await member.getByLabel("Key name").fill("dev laptop");
    await member.getByRole("button", { name: "Generate key" }).click();
    await member.getByTestId("new-api-key").waitFor();
    // Its role list stops at the developer's own role.
    expect(await member.locator("#key-role option").allTextContents()).toEqual(["Viewer", "Developer"]);
  });

  it("shows the new member with their role on the owner's Members list", async () => {
    await page.reload();
    const dev = memberRow("dev@example.com");
    expect(await dev.getAttribute("data-role")).toBe("developer");
    expect(await dev.getByTestId("member-role-select").inputValue()).toBe("developer");
    expect(await page.getByTestId("invite-row").first().textContent()).toContain("dev@example.com");
    // The key they made is the team's: listed with its role and who made it.
    const key = page.getByTestId("api-key-row").filter({ hasText: "dev laptop" });
    expect(await key.getByTestId("key-role").textContent()).toBe("Developer");
    expect(await key.getByTestId("key-creator").textContent()).toBe("dev@example.com");
  });

  it("changes the member to a viewer, whose dashboard then disables replay and says why", async () => {
    await memberRow("dev@example.com").getByTestId("member-role-select").selectOption("viewer");
    await expect.poll(() => page.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("dev@example.com is now a viewer."));
    await expect.poll(() => memberRow("dev@example.com").getAttribute("data-role")).toBe("viewer");
    await page.locator("#members").scrollIntoViewIfNeeded();
    await shot("settings-members");

    await member.goto(`${t.rehook.url}/events`);
    const replay = member.getByTestId("event-row").first().getByRole("button", { name: "Replay to original" });
    await replay.waitFor();
    expect(await replay.isDisabled()).toBe(true);
    expect(await replay.getAttribute("title")).toBe(VIEWER_REASON);

    await member.getByTestId("event-row").first().getByRole("link").click();
    const replayEvent = member.getByTestId("replay-event");
    await replayEvent.waitFor();
    await waitForHydration(member);
    expect(await replayEvent.isDisabled()).toBe(true);
    expect(await replayEvent.getAttribute("title")).toBe(VIEWER_REASON);
    // R opens no replay dialog for a viewer.
    await member.keyboard.press("r");
    expect(await member.locator("dialog[open]").count()).toBe(0);

    // The endpoint's forms are read-only for a viewer; deleting it needs an admin.
    await member.goto(t.rehook.url);
    const create = member.getByRole("button", { name: "Create endpoint" });
    expect(await create.isDisabled()).toBe(true);
    await member.getByRole("link", { name: "Payments hook" }).click();
    const save = member.getByRole("button", { name: "Save changes" });
    await save.waitFor();
    expect(await save.isDisabled()).toBe(true);
    expect(await member.getByRole("button", { name: "Replay events" }).isDisabled()).toBe(true);
    const deleteEndpoint = member.getByRole("button", { name: "Delete endpoint" });
    expect(await deleteEndpoint.isDisabled()).toBe(true);
    expect(await deleteEndpoint.getAttribute("title")).toBe("Needs the admin role; you are a viewer.");
    await shot("endpoint-viewer", { page: member });

    await member.goto(`${t.rehook.url}/settings`);
    expect(await member.locator("#api-keys").getByTestId("role-note").textContent()).toBe("Managing API keys needs the developer role; you are a viewer.");
    expect(await member.locator("#members").getByTestId("role-note").textContent()).toContain("needs the admin role; you are a viewer.");
    await shot("settings-viewer", { page: member });
  });

  it("removes the member after a confirmation that names the keys it revokes", async () => {
    await memberRow("dev@example.com").getByRole("button", { name: "Remove" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove dev@example.com from the team?" });
    await dialog.waitFor();
    expect(await dialog.getByTestId("remove-member-text").textContent()).toContain("The 1 API key they made for this team will be revoked.");
    await dialog.getByRole("button", { name: "Remove member" }).click();
    // The removal revokes keys and invites and tells every instance: on a busy machine it takes more than poll's default second.
    await expect
      .poll(() => page.getByRole("status").allTextContents(), { timeout: 10_000 })
      .toContainEqual(expect.stringContaining("dev@example.com was removed from the team. 1 API key they made was revoked."));
    await expect.poll(() => memberRow("dev@example.com").count(), { timeout: 10_000 }).toBe(0);
    const [key] = await t.db.query<{ revoked_at: Date | null }>("select revoked_at from api_keys where name = 'dev laptop'");
    expect(key!.revoked_at).not.toBeNull();

    // Their next page is in their own (personal) team, without the owner's endpoint.
    await member.goto(t.rehook.url);
    await member.getByRole("heading", { name: "Endpoints", level: 1 }).waitFor();
    expect(await currentTeam(member)).toBe("dev");
    expect(await member.getByTestId("endpoint-row").count()).toBe(0);
  });

  it("lets a signed-in user join with an invite link, once", async () => {
    await page.locator("#invite-role").selectOption("viewer");
    await page.getByRole("button", { name: "Create invite link" }).click();
    const shown = new URL((await page.getByTestId("new-invite-link").textContent())!.trim());
    const link = `${t.rehook.url}${shown.pathname}${shown.search}`;

    await member.goto(link);
    await member.getByRole("heading", { name: "Join a team" }).waitFor();
    expect(await member.getByText("dev@example.com").count()).toBe(1);
    await member.getByRole("button", { name: "Join team" }).click();
    await expect.poll(() => member.getByTestId("shell-notice").textContent()).toContain("You joined the team “owner”.");
    expect(await currentTeam(member)).toBe("owner");
    expect(await member.getByTestId("team-switcher").locator(".team-switcher-role").textContent()).toBe("Viewer");
    await member.getByTestId("endpoint-row").filter({ hasText: "Payments hook" }).waitFor();

    const before = consoleErrors.length;
    await member.goto(link);
    await member.getByRole("button", { name: "Join team" }).click();
    await expect.poll(() => member.getByRole("alert").textContent()).toContain("already been used");
    // The refusal answers 400, which Chromium logs: that one is expected, nothing else.
    expect(consoleErrors.splice(before)).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
  });
});
