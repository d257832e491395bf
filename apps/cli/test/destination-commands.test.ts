import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { expectRefused, output } from "./cli-answers.js";
import { runCli } from "./run-cli.js";

// rehook destination add|list|update|remove: an endpoint named by its slug, a destination by
// its id. A handful of processes (see commands.test.ts on the cost of one), run side by side
// where they do not depend on each other.

const DEV = "dev@example.com";

let db: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, BASE_URL: "https://hooks.example.com" };
  expect((await runCli(["user", "create", "--email", DEV, "--password", "long enough"], env)).code).toBe(0);
}, 300_000);
afterAll(() => db.drop());

const INVOICES = { "body.type": { $startsWith: "invoice." } };
const PUSHES = { "headers.X-GitHub-Event": "push" };

describe("rehook destination", () => {
  it("add, list (table and --json), update and remove an endpoint's destinations; bad JSON and an unknown slug are refused", { timeout: 600_000 }, async () => {
    const endpoint = output<{ id: string; slug: string }>(await runCli(["endpoint", "create", "--email", DEV, "--name", "Routed"], env));
    const on = ["--email", DEV, "--endpoint", endpoint.slug];

    const [first, second, badFilter, unknownSlug] = await Promise.all([
      runCli(["destination", "add", ...on, "--url", "https://billing.example.com/hooks", "--name", "Billing", "--filter", JSON.stringify(INVOICES), "--rate-limit", "25", "--ordered", "--retry-preset", "hour", "--pause-after", "10"], env),
      runCli(["destination", "add", ...on, "--url", "https://ci.example.com/in", "--filter", JSON.stringify(PUSHES)], env),
      runCli(["destination", "add", ...on, "--url", "https://x.example.com/", "--filter", "{body.type: 1}"], env),
      runCli(["destination", "list", "--email", DEV, "--endpoint", "no-such-endpoint"], env),
    ]);
    const billing = output(first);
    expect(billing).toEqual({
      id: expect.any(String),
      name: "Billing",
      url: "https://billing.example.com/hooks",
      enabled: true,
      filter: INVOICES,
      rate_limit_per_second: 25,
      ordered: true,
      retry_policy: { max_attempts: 5, initial_delay_ms: 240_000, max_delay_ms: 1_920_000 },
      pause_after_failures: 10,
      consecutive_failures: 0,
      forwarding_paused: false,
      paused_reason: null,
      created_at: expect.stringMatching(/Z$/),
    });
    const ci = output(second);
    expect(ci).toMatchObject({ name: "ci.example.com", url: "https://ci.example.com/in", filter: PUSHES, rate_limit_per_second: null, ordered: false, retry_policy: null, pause_after_failures: null });
    expectRefused(badFilter, 2, /^rehook destination add: --filter must be JSON/);
    expectRefused(unknownSlug, 1, /^rehook: There is no endpoint with the slug no-such-endpoint\. /);
    // Added side by side, so in either order: the list follows the stored positions.
    const stored = await db.query<{ id: string }>("select id from destinations where endpoint_id = $1 order by position", [endpoint.id]);
    expect(stored.map((row) => row.id).sort()).toEqual([billing.id, ci.id].sort());
    const byPosition = stored.map((row) => (row.id === billing.id ? billing : ci));

    // The circuit breaker holds one of them.
    await db.query("update destinations set forwarding_paused_at = now(), paused_reason = 'paused by the test' where id = $1", [ci.id]);
    const [json, table] = await Promise.all([runCli(["destination", "list", ...on, "--json"], env), runCli(["destination", "list", ...on], env)]);
    const pausedCi = { ...ci, forwarding_paused: true, paused_reason: "paused by the test" };
    expect(output<{ data: unknown[] }>(json)).toEqual({ data: byPosition.map((row) => (row === ci ? pausedCi : row)) });
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^ID\s+NAME\s+URL\s+FILTER\s+RATE\s+ORDERED\s+STATE$/);
    const rows = {
      [String(billing.id)]: [billing.id, "Billing", "https://billing.example.com/hooks", "yes", "25/s", "yes", "enabled"],
      [String(ci.id)]: [ci.id, "ci.example.com", "https://ci.example.com/in", "yes", "-", "no", "paused"],
    };
    expect(lines.slice(1).map((line) => line.trim().split(/\s{2,}/))).toEqual(byPosition.map((row) => rows[String(row.id)]));

    const [updated, removed] = await Promise.all([
      runCli(["destination", "update", ...on, "--id", String(ci.id), "--filter", "null", "--rate-limit", "5", "--ordered", "--disable"], env),
      runCli(["destination", "remove", ...on, "--id", String(billing.id)], env),
    ]);
    expect(output(updated)).toEqual({ ...pausedCi, filter: null, rate_limit_per_second: 5, ordered: true, enabled: false });
    expect(output(removed)).toEqual({ endpoint: endpoint.slug, removed: billing.id });
    const after = await db.query("select id, filter, rate_limit_per_second, ordered, enabled from destinations where endpoint_id = $1", [endpoint.id]);
    expect(after).toEqual([{ id: ci.id, filter: null, rate_limit_per_second: 5, ordered: true, enabled: false }]);
  });
});
