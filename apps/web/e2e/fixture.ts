import { mkdir } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { head, rawRequest } from "../test/raw-http.js";
import { startTestServer, type TestServer } from "../test/test-server.js";
import { launchBrowser, type Browser } from "./browser.js";

const SCREENSHOTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "screenshots");

type SinkAnswer = (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;

export interface Dashboard<Names extends string = never> {
  t: TestServer;
  /** The sinks asked for, by name, started before the server. */
  sinks: Record<Names, Sink>;
  browser: Browser;
  /** The browser's first tab. */
  page: Page;
  /** Console errors and uncaught exceptions of every watched page (the first tab is watched). */
  consoleErrors: string[];
  /** Adds a page's console errors and uncaught exceptions to consoleErrors. */
  watch(target: Page): void;
  /** Saves a screenshot as e2e/screenshots/<name>.png: of the whole page unless fullPage is false. */
  shot(name: string, options?: { page?: Page; fullPage?: boolean }): Promise<Buffer>;
  /** Closes the browser, the sinks and the server (return it from beforeAll). */
  close(): Promise<void>;
}

/**
 * A Rehook server (private destinations allowed) with sinks of its own and a headless
 * Chromium on it. `env` may use the sinks (a provider's base URL, say). When a step fails,
 * what had started is closed again.
 */
export async function openDashboard<Names extends string = never>(
  options: { sinks?: Record<Names, SinkAnswer>; env?: (sinks: Record<Names, Sink>) => Record<string, string>; now?: () => number } = {},
): Promise<Dashboard<Names>> {
  await mkdir(SCREENSHOTS, { recursive: true });
  const started: Array<{ close(): Promise<void> }> = [];
  // The browser first, the server last: the reverse of the start (and only once).
  const close = async () => {
    for (const part of started.splice(0).reverse()) await part.close();
  };
  try {
    const answers = Object.entries<SinkAnswer>(options.sinks ?? ({} as Record<Names, SinkAnswer>));
    const sinks = {} as Record<string, Sink>;
    for (const [name, answer] of answers) {
      sinks[name] = await startSink(answer);
      started.push(sinks[name]);
    }
    const t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", ...options.env?.(sinks) }, undefined, options.now ? { now: options.now } : {});
    started.push(t);
    const browser = await launchBrowser();
    started.push(browser);
    const page = await browser.context.newPage();
    const consoleErrors: string[] = [];
    const watch = (target: Page) => {
      target.on("console", (message) => {
        if (message.type() === "error") consoleErrors.push(message.text());
      });
      target.on("pageerror", (error) => consoleErrors.push(String(error)));
    };
    watch(page);
    return {
      t,
      sinks,
      browser,
      page,
      consoleErrors,
      watch,
      shot: (name, { page: target = page, fullPage = true } = {}) => target.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * POSTs a JSON body to a capture URL (/api/webhook/<slug>) with these header lines, in order,
 * and a Content-Length; expects 200 and answers the captured event's id.
 */
export async function captureEvent(baseUrl: string, slug: string, body: string, headers: Array<[string, string]> = [["Content-Type", "application/json"]]): Promise<string> {
  const bytes = Buffer.from(body);
  const response = await rawRequest(baseUrl, [head("POST", `/api/webhook/${slug}`, [...headers, ["Content-Length", String(bytes.length)]]), bytes]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

/** Waits until the loaded dashboard page is hydrated: its key handlers are attached. */
export async function waitForHydration(page: Page): Promise<void> {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}

/** Loads a dashboard page and waits until it is hydrated. */
export async function openHydrated(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await waitForHydration(page);
}

/** Signs up on the dashboard at baseUrl and waits for the Endpoints page. */
export async function signUp(page: Page, baseUrl: string, email: string): Promise<void> {
  await page.goto(`${baseUrl}/signup`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill("a long enough password");
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(`${baseUrl}/`);
  await page.getByRole("heading", { name: "Endpoints" }).waitFor();
}

/** Creates an endpoint on the Endpoints page (capture only without a destination) and answers its slug and id. */
export async function createEndpoint(page: Page, name: string, destinationUrl?: string): Promise<{ slug: string; id: string }> {
  await page.getByRole("link", { name: "Endpoints", exact: true }).click();
  await page.getByRole("heading", { name: "Endpoints", level: 1 }).waitFor();
  await page.getByLabel("Name").fill(name);
  if (destinationUrl !== undefined) await page.getByLabel("Destination URL").fill(destinationUrl);
  await page.getByRole("button", { name: "Create endpoint" }).click();
  const row = page.getByTestId("endpoint-row").filter({ hasText: name });
  await row.waitFor();
  const slug = (await row.getByTestId("capture-url").textContent())!.trim().split("/").pop()!;
  const href = (await row.getByRole("link", { name }).getAttribute("href"))!;
  return { slug, id: href.split("/").pop()! };
}
