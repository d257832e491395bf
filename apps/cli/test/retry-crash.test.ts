import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createPool, startEmbeddedPostgres, type EmbeddedDatabase, type Pool } from "@rehook/db";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { useCliInstances } from "./cli-instances.js";
import { exited, runCli, startRehook } from "./run-cli.js";

const cli = useCliInstances("retry@example.com");

/** A destination that fails the first `failures` requests carrying each body, then answers 200. */
async function failingAtFirst(failures: number): Promise<{ sink: Sink; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const started = await startSink((_req, res, body) => {
    const n = (hits.get(body.toString()) ?? 0) + 1;
    hits.set(body.toString(), n);
    res.statusCode = n <= failures ? 500 : 200;
    res.end();
  });
  return { sink: started, hits };
}

async function endpointWithRetries(cliEnv: Record<string, string>, name: string, port: number): Promise<{ id: string; slug: string; retry_policy: unknown }> {
  const result = await runCli(
    ["endpoint", "create", "--email", "retry@example.com", "--name", name, "--destination", `http://127.0.0.1:${port}/in`, "--retry-preset", "hour", "--pause-after", "1000"],
    cliEnv,
  );
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** The hour preset, with waits short enough for a test (the columns the preset set on the endpoint's first destination, shortened). */
const shortenRetries = (query: (sql: string, params: unknown[]) => Promise<unknown>, id: string, delayMs: number) =>
  query("update destinations set retry_initial_delay_ms = $2, retry_max_delay_ms = $2 where endpoint_id = $1 and position = 0", [id, delayMs]);

const attemptsOf = async (endpointId: string) =>
  cli.db.query<{ body: string; attempt: number; outcome: string }>(
    `select convert_from(e.body, 'UTF8') as body, a.attempt, a.outcome from delivery_attempts a join events e on e.id = a.event_id
     where e.endpoint_id = $1 order by e.id, a.attempt`,
    [endpointId],
  );
const statusCounts = async (endpointId: string) =>
  cli.db.query<{ status: string; n: string }>("select status, count(*) as n from events where endpoint_id = $1 group by status order by status", [endpointId]);

describe("scheduled retries across crashes and instances", () => {
  it("a retry scheduled before a kill -9 is sent once after a restart", async () => {
    const destination = await failingAtFirst(1);
    cli.sink = destination.sink;
    const endpoint = await endpointWithRetries(cli.env, "crash retry", cli.sink.port);
    expect(endpoint.retry_policy).toEqual({ max_attempts: 5, initial_delay_ms: 240_000, max_delay_ms: 1_920_000 });
    await shortenRetries((sql, params) => cli.db.query(sql, params), endpoint.id, 4_000);

    const first = await startRehook(cli.env);
    cli.children.push(first.child);
    for (let i = 0; i < 5; i += 1) expect((await fetch(`${first.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: `event-${i}` })).status).toBe(200);
    await waitFor(async () => (await attemptsOf(endpoint.id)).length === 5, "every first attempt to fail", 20_000);
    first.child.kill("SIGKILL");
    await exited(first.child);
    const scheduled = await cli.db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and status = 'pending' and next_attempt_at > now()", [endpoint.id]);
    expect(scheduled[0]!.n).toBe("5"); // the kill came before any retry was due

    const second = await startRehook(cli.env);
    cli.children.push(second.child);
    await waitFor(async () => (await statusCounts(endpoint.id)).every((row) => row.status === "delivered"), "the retries after the restart", 40_000);
    expect([...destination.hits.values()]).toEqual([2, 2, 2, 2, 2]);
    const attempts = await attemptsOf(endpoint.id);
    expect(attempts.map((a) => `${a.attempt}:${a.outcome}`)).toEqual(Array.from({ length: 5 }, () => ["1:failed", "2:delivered"]).flat());
  });

  it("a first attempt under way when its instance is killed is sent by the next one once the lease on its event expires", async () => {
    // The first request of each body is held unanswered: the instance is killed while sending it.
    const hits = new Map<string, number>();
    cli.sink = await startSink((_req, res, body) => {
      const n = (hits.get(body.toString()) ?? 0) + 1;
      hits.set(body.toString(), n);
      if (n > 1) res.end();
    });
    const endpoint = await endpointWithRetries(cli.env, "crash in flight", cli.sink.port);
    // A longer timeout than the file's (1 s) for this one: the kill must come while the sends wait.
    const first = await startRehook({ ...cli.env, FORWARD_TIMEOUT_MS: "5000" });
    cli.children.push(first.child);
    for (let i = 0; i < 3; i += 1) expect((await fetch(`${first.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: `inflight-${i}` })).status).toBe(200);
    await waitFor(() => hits.size === 3, "every first attempt to reach the destination");
    first.child.kill("SIGKILL");
    await exited(first.child);
    // Their only delivery was leased on the event by the fast path: no delivery row, no attempt stored.
    const leased = await cli.db.query<{ n: string; rows: string }>(
      "select count(*) as n, (select count(*) from deliveries where endpoint_id = $1) as rows from events where endpoint_id = $1 and fast_path_destination_id is not null",
      [endpoint.id],
    );
    expect(leased[0]).toEqual({ n: "3", rows: "0" });

    const second = await startRehook(cli.env);
    cli.children.push(second.child);
    await waitFor(async () => (await statusCounts(endpoint.id)).every((row) => row.status === "delivered"), "the sends after the lease expired", 40_000);
    expect([...hits.values()]).toEqual([2, 2, 2]);
    // The lost attempt is counted (it may have been sent): the one stored is the second.
    expect((await attemptsOf(endpoint.id)).map((a) => `${a.attempt}:${a.outcome}`)).toEqual(["2:delivered", "2:delivered", "2:delivered"]);
    expect(await cli.db.query("select status, attempts from deliveries where endpoint_id = $1", [endpoint.id])).toEqual(
      Array.from({ length: 3 }, () => ({ status: "delivered", attempts: 2 })),
    );
  });

  it("two instances on one database send every attempt exactly once", async () => {
    const destination = await failingAtFirst(2);
    cli.sink = destination.sink;
    const endpoint = await endpointWithRetries(cli.env, "shared retries", cli.sink.port);
    await shortenRetries((sql, params) => cli.db.query(sql, params), endpoint.id, 200);
    const a = await startRehook(cli.env);
    const b = await startRehook(cli.env);
    cli.children.push(a.child, b.child);
    await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        fetch(`${i % 2 === 0 ? a.url : b.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: `shared-${i}` }).then((r) => expect(r.status).toBe(200)),
      ),
    );
    await waitFor(async () => {
      const counts = await statusCounts(endpoint.id);
      return counts.length === 1 && counts[0]!.status === "delivered" && counts[0]!.n === "100";
    }, "both instances to finish", 60_000);
    expect(destination.hits.size).toBe(100);
    expect([...destination.hits.values()].every((n) => n === 3)).toBe(true);
    const attempts = await attemptsOf(endpoint.id);
    expect(attempts).toHaveLength(300);
    const endpointRow = await cli.db.query<{ delivered_count: string; failed_count: string }>("select delivered_count, failed_count from endpoints where id = $1", [endpoint.id]);
    expect(endpointRow[0]).toEqual({ delivered_count: "100", failed_count: "0" });
  });

  it("a retry scheduled before PostgreSQL restarts is sent once when it is back", async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-retry-pg-"));
    let database: EmbeddedDatabase | undefined = await startEmbeddedPostgres({ dataDir });
    let pool: Pool | undefined;
    try {
      const ownEnv = { ...cli.env, DATABASE_URL: database.url };
      expect((await runCli(["user", "create", "--email", "retry@example.com", "--password", "long enough"], ownEnv)).code).toBe(0);
      const destination = await failingAtFirst(1);
      cli.sink = destination.sink;
      const endpoint = await endpointWithRetries(ownEnv, "pg restart", cli.sink.port);
      pool = createPool({ databaseUrl: database.url, max: 2, onError: () => undefined });
      const query = (sql: string, params: unknown[]) => pool!.query(sql, params);
      await shortenRetries(query, endpoint.id, 4_000);
      const rehook = await startRehook(ownEnv);
      cli.children.push(rehook.child);
      expect((await fetch(`${rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: "survivor" })).status).toBe(200);
      await waitFor(() => destination.hits.get("survivor") === 1, "the first attempt");
      await waitFor(async () => (await pool!.query("select count(*) as n from delivery_attempts")).rows[0].n === "1", "the first attempt to be stored");
      await pool.end();
      pool = undefined;
      await database.stop();
      database = undefined;
      database = await startEmbeddedPostgres({ dataDir }); // same data, same port
      pool = createPool({ databaseUrl: database.url, max: 2, onError: () => undefined });
      await waitFor(async () => (await pool!.query("select status from events")).rows[0].status === "delivered", "the retry after the restart", 40_000);
      expect(destination.hits.get("survivor")).toBe(2);
      const attempts = await pool.query("select attempt, outcome from delivery_attempts order by attempt");
      expect(attempts.rows).toEqual([
        { attempt: 1, outcome: "failed" },
        { attempt: 2, outcome: "delivered" },
      ]);
    } finally {
      for (const child of cli.children.splice(0)) {
        child.kill("SIGKILL");
        await exited(child);
      }
      await pool?.end();
      await database?.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
