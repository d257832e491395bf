import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { exited, runCli, startRehook } from "./run-cli.js";

// rehook endpoint list, events list and events get: on the database, for the user of --email,
// a table by default and with --json exactly what the public API answers.

const OWNER = "lists@example.com";
let db: TestDatabase;
let env: Record<string, string>;
let server: { child: ChildProcess; url: string };
let destination: Sink;
let apiKey: string;
let orders: { id: string; slug: string };
let other: { id: string; slug: string };
/** Fans out to the sink's /in (answers 200) and "Down" (/down, answers 500, pauses after one failure). */
let fanout: { id: string; slug: string };
/** Captured events, oldest first. */
const ids: string[] = [];

async function capture(slug: string, subPath: string, body: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${server.url}/api/webhook/${slug}${subPath}`, { method: "POST", headers, body });
  expect(response.status).toBe(200);
  return ((await response.json()) as { eventId: string }).eventId;
}

async function api(path: string): Promise<unknown> {
  const response = await fetch(`${server.url}/api/v1${path}`, { headers: { authorization: `Bearer ${apiKey}` } });
  expect(response.status).toBe(200);
  return response.json();
}

/** The CLI's line of text on stderr and its exit code, for a command that must fail. */
function expectOneLineError(result: { code: number | null; stderr: string }, code: number, pattern: RegExp) {
  expect(result.code).toBe(code);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

beforeAll(async () => {
  db = await createTestDatabase();
  destination = await startSink((req, res) => {
    if (req.url?.startsWith("/down")) res.statusCode = 500;
    res.end("thanks");
  });
  env = { DATABASE_URL: db.url, BASE_URL: "https://hooks.example.com", ALLOW_PRIVATE_DESTINATIONS: "true" };
  expect((await runCli(["user", "create", "--email", OWNER, "--password", "long enough"], env)).code).toBe(0);
  expect((await runCli(["user", "create", "--email", "someone@example.com", "--password", "long enough"], env)).code).toBe(0);
  const [created, elsewhere, key, fannedOut] = await Promise.all([
    runCli(["endpoint", "create", "--email", OWNER, "--name", "orders", "--destination", `http://127.0.0.1:${destination.port}/in`], env),
    runCli(["endpoint", "create", "--email", "someone@example.com", "--name", "not yours"], env),
    runCli(["apikey", "create", "--email", OWNER], env),
    runCli(["endpoint", "create", "--email", OWNER, "--name", "fanout", "--destination", `http://127.0.0.1:${destination.port}/in`], env),
  ]);
  orders = JSON.parse(created.stdout) as { id: string; slug: string };
  other = JSON.parse(elsewhere.stdout) as { id: string; slug: string };
  fanout = JSON.parse(fannedOut.stdout) as { id: string; slug: string };
  const down = ["destination", "add", "--email", OWNER, "--endpoint", fanout.slug, "--name", "Down", "--url", `http://127.0.0.1:${destination.port}/down`, "--pause-after", "1"];
  expect((await runCli(down, env)).code).toBe(0);
  apiKey = key.stdout.trim().split("\n").at(-1)!;
  server = await startRehook(env);
  ids.push(await capture(orders.slug, "/stripe?attempt=1", JSON.stringify({ type: "invoice.paid", id: 1 }), { "content-type": "application/json", "stripe-signature": "t=1,v1=x" }));
  ids.push(await capture(orders.slug, "/github", JSON.stringify({ action: "opened" }), { "content-type": "application/json", "x-github-event": "pull_request", "x-hub-signature-256": "sha256=x" }));
  // What a sender may put in a body: escape sequences that would retitle the window and clear the screen.
  ids.push(await capture(orders.slug, "/plain", "hello \x1b]0;pwned\x07\x1b[2J\u009b31m world", { "content-type": "text/plain" }));
  await capture(other.slug, "/", "{}", { "content-type": "application/json" });
  await waitFor(async () => (await db.query("select 1 from events where status = 'delivered' and endpoint_id = $1", [orders.id])).length === 3, "the three events delivered", 60_000);
}, 240_000);
afterAll(async () => {
  server?.child.kill("SIGTERM");
  if (server) await exited(server.child);
  await destination?.close();
  await db?.drop();
});

describe("rehook endpoint list", () => {
  it("prints the user's endpoints as a table, and with --json what GET /api/v1/endpoints answers", async () => {
    const [table, json, fromApi] = await Promise.all([
      runCli(["endpoint", "list", "--email", OWNER], env),
      runCli(["endpoint", "list", "--email", OWNER, "--json", "--limit", "20"], env),
      api("/endpoints"),
    ]);
    expect(table.code).toBe(0);
    const [header, ...rows] = table.stdout.trimEnd().split("\n");
    expect(rows.map((line) => line.split(/\s+/)[0]).sort()).toEqual([orders.id, fanout.id].sort());
    const row = rows.find((line) => line.startsWith(orders.id));
    expect(header).toMatch(/^ID\s+SLUG\s+NAME\s+EVENTS\s+LAST EVENT\s+HEALTH\s+DESTINATION$/);
    expect(row).toMatch(new RegExp(`^${orders.id}\\s+${orders.slug}\\s+orders\\s+3\\s+\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\s+healthy\\s+http://127\\.0\\.0\\.1:${destination.port}/in$`));
    expect(table.stdout).not.toContain(other.slug);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(fromApi);
  }, 180_000);
});

describe("rehook events list", () => {
  it("prints the newest first as a table: id, path with query, sender, status, the destination's answer", async () => {
    const result = await runCli(["events", "list", "--email", OWNER, "--endpoint", orders.id], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+RECEIVED\s+ENDPOINT\s+METHOD\s+PATH\s+EVENT\s+STATUS\s+HTTP\s+LATENCY\s+DELIVERIES$/);
    expect(lines.slice(1, 4).map((line) => line.split(/\s+/)[0])).toEqual([...ids].reverse());
    expect(lines[3]).toMatch(/^\S+\s+\S+Z\s+orders\s+POST\s+\/stripe\?attempt=1\s+stripe\/invoice\.paid\s+delivered\s+200\s+\d+ ms {2}127\.0\.0\.1 delivered$/);
    expect(lines[2]).toMatch(/\/github\s+github\/pull_request\.opened\s+delivered/);
    expect(lines.slice(4)).toEqual(["", "1-3 of 3 events"]);
  }, 180_000);

  it("filters with the API's flags, pages with the --cursor it prints, and with --json prints what GET /api/v1/events answers", async () => {
    const [stripe, firstPage, json, fromApi] = await Promise.all([
      runCli(["events", "list", "--email", OWNER, "--source", "stripe"], env),
      runCli(["events", "list", "--email", OWNER, "--endpoint", orders.id, "--limit", "2"], env),
      runCli(["events", "list", "--email", OWNER, "--endpoint", orders.id, "--limit", "2", "--json"], env),
      api(`/events?endpoint_id=${orders.id}&limit=2`),
    ]);
    expect(stripe.stdout.trimEnd().split("\n").slice(1, -2)).toEqual([expect.stringMatching(new RegExp(`^${ids[0]}\\s`))]);
    const cursor = /older: --cursor (\S+)$/.exec(firstPage.stdout.trimEnd())![1]!;
    expect(JSON.parse(json.stdout)).toEqual(fromApi);
    expect((fromApi as { meta: { next_cursor: string } }).meta.next_cursor).toBe(cursor);
    const secondPage = await runCli(["events", "list", "--email", OWNER, "--endpoint", orders.id, "--limit", "2", "--cursor", cursor], env);
    expect(secondPage.stdout.trimEnd().split("\n").slice(1)).toEqual([expect.stringMatching(new RegExp(`^${ids[0]}\\s`)), "", "1-1 of 3 events"]);
  }, 180_000);

  it("refuses a bad flag value in one line naming it, and a bad cursor in one line", async () => {
    const [status, limit, cursor] = await Promise.all([
      runCli(["events", "list", "--email", OWNER, "--status", "lost"], env),
      runCli(["events", "list", "--email", OWNER, "--limit", "ten"], env),
      runCli(["events", "list", "--email", OWNER, "--cursor", "nope"], env),
    ]);
    expectOneLineError(status, 2, /--status must be one of captured, pending, delivered, failed/);
    expectOneLineError(limit, 2, /--limit must be a whole number/);
    expectOneLineError(cursor, 1, /cursor is not one this API gave/);
  }, 180_000);
});

describe("rehook events get", () => {
  it("prints the event for a person, and with --json what GET /api/v1/events/{id} answers", async () => {
    const [text, json, fromApi] = await Promise.all([
      runCli(["events", "get", ids[0]!, "--email", OWNER], env),
      runCli(["events", "get", ids[0]!, "--email", OWNER, "--json"], env),
      api(`/events/${ids[0]}`),
    ]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(`Event      ${ids[0]}\n`);
    expect(text.stdout).toContain("Request    POST /stripe?attempt=1\n");
    expect(text.stdout).toContain("Sender     stripe / invoice.paid\n");
    expect(text.stdout).toMatch(/Status {5}delivered 200 in \d+ ms\n/);
    expect(text.stdout).toContain(`Deliveries\n  delivered  127.0.0.1 · http://127.0.0.1:${destination.port}/in\n`);
    expect(text.stdout).toMatch(/\/in\n {4}#1 {3}\S+Z {2}delivered {2}200 {2}\d+ ms\n/);
    expect(text.stdout).toContain("  stripe-signature: t=1,v1=x\n");
    expect(text.stdout).toContain(`Body\n{\n  "type": "invoice.paid",\n  "id": 1\n}\n`);
    expect(JSON.parse(json.stdout)).toEqual(fromApi);
  }, 180_000);

  it("shows the control characters a sender put in a body as visible escapes, never as terminal commands", async () => {
    const result = await runCli(["events", "get", ids[2]!, "--email", OWNER], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Body\nhello \\x1b]0;pwned\\x07\\x1b[2J\\x9b31m world\n");
    expect(result.stdout).not.toMatch(/[\u001b\u0007\u009b]/);
  }, 180_000);

  it("answers an unknown id, another user's event and a missing id in one line", async () => {
    const [unknown, notTheirs, missing] = await Promise.all([
      runCli(["events", "get", "0190f3c4-0000-7000-8000-000000000000", "--email", OWNER], env),
      runCli(["events", "get", ids[0]!, "--email", "someone@example.com"], env),
      runCli(["events", "get", "--email", OWNER], env),
    ]);
    expectOneLineError(unknown, 1, /^rehook: .*event.*0190f3c4-0000-7000-8000-000000000000/i);
    expectOneLineError(notTheirs, 1, new RegExp(`^rehook: .*${ids[0]}`));
    expectOneLineError(missing, 2, /^rehook events get: The argument <id> is missing/);
  }, 180_000);
});

describe("each destination's state in the tables", () => {
  it("reads paused for a delivery held by a paused destination and names it, in the list and in the event", async () => {
    const tripped = await capture(fanout.slug, "/", '{"n":1}', { "content-type": "application/json" });
    await waitFor(async () => (await db.query("select 1 from destinations where endpoint_id = $1 and forwarding_paused_at is not null", [fanout.id])).length === 1, "Down to pause", 60_000);
    const held = await capture(fanout.slug, "/", '{"n":2}', { "content-type": "application/json" });
    await waitFor(async () => (await db.query("select 1 from deliveries where event_id = $1 and status = 'delivered'", [held])).length === 1, "the other destination's delivery", 60_000);

    const [list, detail, json] = await Promise.all([
      runCli(["events", "list", "--email", OWNER, "--endpoint", fanout.id], env),
      runCli(["events", "get", held, "--email", OWNER], env),
      runCli(["events", "get", held, "--email", OWNER, "--json"], env),
    ]);
    expect(list.code).toBe(0);
    const row = (id: string) => list.stdout.split("\n").find((line) => line.startsWith(id))!;
    expect(row(held)).toMatch(/\spending\s.*\s127\.0\.0\.1 delivered, Down paused$/);
    expect(row(tripped)).toMatch(/\sfailed\s.*\s127\.0\.0\.1 delivered, Down failed$/);
    expect(detail.stdout).toContain(`Deliveries\n  delivered  127.0.0.1 · http://127.0.0.1:${destination.port}/in\n`);
    expect(detail.stdout).toContain(`  paused     Down · http://127.0.0.1:${destination.port}/down\n             waits until Down is resumed`);
    const deliveries = (JSON.parse(json.stdout) as { deliveries: Array<{ name: string; status: string }> }).deliveries;
    expect(deliveries.map((delivery) => [delivery.name, delivery.status])).toEqual([
      ["127.0.0.1", "delivered"],
      ["Down", "paused"],
    ]);
  }, 180_000);
});

describe("rehook --help", () => {
  it("lists the listing and replay commands, and each answers --help", async () => {
    const commands = [["endpoint", "list"], ["events", "list"], ["events", "get"], ["replay"]];
    const [overview, ...helps] = await Promise.all([runCli(["--help"], env), ...commands.map((command) => runCli([...command, "--help"], env))]);
    expect(overview.code).toBe(0);
    for (const [index, command] of commands.entries()) {
      expect(overview.stdout).toContain(`rehook ${command.join(" ")} `);
      expect(helps[index]!.code).toBe(0);
      expect(helps[index]!.stdout).toMatch(new RegExp(`^Usage: rehook ${command.join(" ")} `));
    }
  }, 180_000);
});
