import { spawn, type ChildProcess } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { actorFor, createApiKey } from "@rehook/services";
import { head, rawRequest } from "../test/raw-http.js";
import type { TestServer } from "../test/test-server.js";
import { createEndpoint, openDashboard, openHydrated, signUp, type Dashboard } from "./fixture.js";

// The dashboard's Local replay in a real Chromium: through a connected `rehook listen` (the
// built CLI, as a developer runs it) byte for byte; else from the browser, which says exactly
// what happened when the local server does not allow CORS or nothing listens, and never
// "sent" when nothing was.

/** The built `rehook` command (the CLI finds the dashboard's build by path; this test finds the CLI so). */
const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../cli/bin/rehook.cjs");

interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** A developer's local server on 127.0.0.1 (which http://localhost reaches) at a free port, without any CORS. */
async function localServer(answer: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => res.end("local ok")) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ method: req.method ?? "", url: req.url ?? "", rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) });
      answer(req, res);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Header pairs as received, in order, without the ones the sending connection sets itself. */
function pairs(raw: string[]): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) list.push([raw[i]!, raw[i + 1]!]);
  return list.filter(([name]) => !["host", "connection", "content-length"].includes(name.toLowerCase()));
}

let t: TestServer;
let origin: Sink;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
const children: ChildProcess[] = [];

beforeAll(async () => {
  const dashboard = await openDashboard({ sinks: { origin: (_req, res) => res.end("destination ok") } });
  ({ t, page, consoleErrors, shot, sinks: { origin } } = dashboard);
  return dashboard.close;
});
afterAll(() => {
  for (const child of children) child.kill("SIGKILL");
});

/** `rehook listen` forwarding to `forward`, with its output collected as it comes. */
function startListen(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [CLI, "listen", ...args], {
    env: { PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", NO_COLOR: "1" } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  children.push(child);
  return { child, output: () => output };
}

/** The Replay dialog of an event, Local chosen, at a port. */
async function openLocalReplay(eventId: string, port: number): Promise<Locator> {
  await openHydrated(page, `${t.rehook.url}/events/${eventId}`);
  await page.getByRole("button", { name: "Replay", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "Replay event" });
  await dialog.getByRole("radio", { name: "Local" }).check();
  await dialog.getByRole("spinbutton", { name: "Local port" }).fill(String(port));
  return dialog;
}

describe("Local replays", () => {
  // JSON with headers a page cannot send without a preflight, in the order captured, one of them twice.
  const body = '{"id":"evt_local","type":"invoice.paid","amount":4200}';
  const captured: Array<[string, string]> = [
    ["Content-Type", "application/json"],
    ["Stripe-Signature", "t=1,v1=abc"],
    ["X-Dup", "1"],
    ["X-Dup", "2"],
  ];
  let slug = "";
  let eventId = "";
  let apiKey = "";

  it("signs up, creates an endpoint with a destination, captures an event and makes an API key for rehook listen", async () => {
    await signUp(page, t.rehook.url, "local@example.com");
    const endpoint = await createEndpoint(page, "Billing", `http://127.0.0.1:${origin.port}/billing`);
    slug = endpoint.slug;
    const bytes = Buffer.from(body);
    const answer = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [...captured, ["Content-Length", String(bytes.length)]]), bytes]);
    eventId = JSON.parse(answer.body).eventId as string;
    await expect.poll(() => origin.received.length, { timeout: 10_000 }).toBe(1);
    const [user] = await t.db.query<{ id: string }>("select id from users where email = 'local@example.com'");
    const { actor } = await actorFor(t.rehook.services, { userId: user!.id });
    apiKey = (await createApiKey(t.rehook.services, actor, { name: "listen" })).key;
  });

  it("goes through a connected rehook listen: its local server gets the exact bytes and headers, and the record says local via listen with its URL", async () => {
    const local = await localServer();
    const listener = startListen(["--endpoint", slug, "--forward", `http://127.0.0.1:${local.port}/dev`, "--server", t.rehook.url, "--api-key", apiKey]);
    try {
      await waitFor(() => listener.output().includes("● connected"), "rehook listen to connect", 30_000);
      // A port nothing listens on: the browser could not have sent it, only the listener.
      const dialog = await openLocalReplay(eventId, 9);
      await dialog.getByRole("button", { name: "Send replay" }).click();
      const outcome = dialog.getByTestId("local-outcome");
      await expect.poll(() => outcome.getAttribute("data-route"), { timeout: 45_000 }).toBe("listen");
      await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status")).toBe("delivered");
      expect(await outcome.textContent()).toContain("Sent by your rehook listen");
      expect(await dialog.getByTestId("replay-destination").textContent()).toBe(`http://127.0.0.1:${local.port}/dev`);
      await shot("replay-local-listen", { fullPage: false });

      expect(local.received).toHaveLength(1);
      const got = local.received[0]!;
      expect(got.method).toBe("POST");
      expect(got.url).toBe("/dev");
      expect(got.body.equals(Buffer.from(body))).toBe(true);
      expect(pairs(got.rawHeaders).filter(([name]) => /^(content-type|stripe-signature|x-dup)$/i.test(name))).toEqual(captured);
      expect(listener.output()).toContain("(replay from the dashboard)");

      const records = await t.db.query<{ local_via: string; destination_url: string; destination_id: string | null; status: string; response_status: number }>(
        "select local_via, destination_url, destination_id, status, response_status from replay_attempts where event_id = $1 and environment = 'local'",
        [eventId],
      );
      expect(records).toEqual([{ local_via: "listen", destination_url: `http://127.0.0.1:${local.port}/dev`, destination_id: null, status: "delivered", response_status: 200 }]);
      expect(records[0]!.destination_url).not.toContain("/billing");
      // Nothing went to the endpoint's destination.
      expect(origin.received).toHaveLength(1);
    } finally {
      listener.child.kill("SIGINT");
      await new Promise((resolve) => (listener.child.exitCode !== null ? resolve(null) : listener.child.once("exit", resolve)));
      await local.close();
    }
  }, 90_000);

  it("without a listener, says the local server refused the CORS preflight and that nothing was sent; sends without CORS only when asked", async () => {
    // A typical dev server: no CORS, OPTIONS not handled.
    const local = await localServer((req, res) => {
      res.statusCode = req.method === "OPTIONS" ? 404 : 200;
      res.end(req.method === "OPTIONS" ? "Cannot OPTIONS /billing" : "ok");
    });
    try {
      // The listener's stream is gone: its row is removed when the stream closes.
      await waitFor(async () => (await t.db.query("select 1 from local_listeners")).length === 0, "the listener to be gone");
      const dialog = await openLocalReplay(eventId, local.port);
      await dialog.getByRole("button", { name: "Send replay" }).click();
      const outcome = dialog.getByTestId("local-outcome");
      await expect.poll(() => outcome.getAttribute("data-kind"), { timeout: 20_000 }).toBe("preflight_refused");
      expect(await outcome.getAttribute("data-sent")).toBe("no");
      expect(await dialog.getByTestId("local-headline").textContent()).toBe("Not sent: your local server refused the CORS preflight.");
      const text = (await outcome.textContent())!;
      expect(text).not.toMatch(/\bSent\b|\bsent to\b|still sent/);
      expect(text).toContain("Content-Type: application/json");
      for (const framework of ["Express", "Next.js", "Flask", "FastAPI", "Rails"]) expect(text).toContain(framework);
      await shot("replay-local-preflight-refused", { fullPage: false });
      // The browser asked (OPTIONS) and the POST never went out; the dialog's probe (HEAD /, no body) found the server up.
      expect(local.received.map((request) => `${request.method} ${request.url}`)).toEqual(["OPTIONS /billing", "HEAD /"]);
      const [record] = await t.db.query<{ local_via: string; status: string; error: string; response_status: number | null }>(
        "select local_via, status, error, response_status from replay_attempts where event_id = $1 and local_via = 'browser' order by id desc limit 1",
        [eventId],
      );
      expect(record).toMatchObject({ local_via: "browser", status: "failed", response_status: null });
      expect(record!.error).toMatch(/^not sent: the CORS preflight to http:\/\/localhost:\d+\/billing was refused/);

      // Asked to: the body goes as captured without the headers such a request cannot carry.
      await dialog.getByRole("button", { name: "Send without CORS" }).click();
      await expect.poll(() => outcome.getAttribute("data-kind"), { timeout: 20_000 }).toBe("opaque");
      expect(await outcome.getAttribute("data-sent")).toBe("yes");
      const posted = local.received.filter((request) => request.method === "POST");
      expect(posted).toHaveLength(1);
      expect(posted[0]!.body.equals(Buffer.from(body))).toBe(true);
      expect(await dialog.getByTestId("local-headline").textContent()).toBe("Sent without CORS: the answer cannot be read.");
    } finally {
      await local.close();
    }
  });

  it("says nothing is listening when the port is closed, and that nothing was sent", async () => {
    const closed = await localServer();
    await closed.close();
    const dialog = await openLocalReplay(eventId, closed.port);
    await dialog.getByRole("button", { name: "Send replay" }).click();
    const outcome = dialog.getByTestId("local-outcome");
    await expect.poll(() => outcome.getAttribute("data-kind"), { timeout: 20_000 }).toBe("nothing_listening");
    expect(await outcome.getAttribute("data-sent")).toBe("no");
    expect(await dialog.getByTestId("local-headline").textContent()).toBe(`Not sent: nothing is listening at http://localhost:${closed.port}.`);
  });

  it("logged no console errors but the browser's own reports of the refused requests", () => {
    const expected = /blocked by CORS policy|net::ERR_CONNECTION_REFUSED|net::ERR_FAILED|Failed to load resource/;
    expect(consoleErrors.filter((message) => !expected.test(message))).toEqual([]);
  });
});
