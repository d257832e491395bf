// pnpm bench:capture-routing — what routing costs the capture path, measured in one run in
// alternating rounds beside the bare node:http baseline:
//   default: endpoints of one Rehook that differ only in routing — one destination (the
//     reference), one destination with a filter that reads the body, dedup on the provider's
//     id (every id new), and three destinations — each given the same load;
//   --old-cli PATH: the same one-destination endpoint on an older build of Rehook (its own
//     embedded PostgreSQL) against this one, to show what the change costs an endpoint
//     that uses none of it.
// --database-url URL (a superuser's, on this machine): each Rehook gets a fresh database on
// that server (the machine's PostgreSQL 15 has JIT, as production servers do) instead of an
// embedded PostgreSQL of its own.
// Every request's body carries an id of its own (Stripe's evt_…), so dedup finds no repeats.
// Then (--hostile N, default 5; 0 skips it) the hostile shape of issue 41: an endpoint of 20
// destinations, each filtered by {"body.items": {"$in": [1,000 small objects]}}, sent N bodies
// of --hostile-bytes (1 MiB) of such items one after another, while /healthz is asked every
// 10 ms: its slowest answer then, beside its slowest during as long a spell of the one-destination
// endpoint's light traffic (the baseline of the same run).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@rehook/db";
import { freshExternalDatabase, postmasterOf } from "./bench-database.js";
import { cpuDuring, processCpuMicros, processTreeCpuMicros } from "./cpu.js";
import { median, runLoad, type LoadResult } from "./load.js";
import { CLI, runRehook, startListening, stop, type Started } from "./processes.js";

const here = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "8" },
    connections: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "2" },
    "old-cli": { type: "string" },
    "database-url": { type: "string" },
    hostile: { type: "string", default: "5" },
    "hostile-bytes": { type: "string", default: String(1024 * 1024) },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const warmupSeconds = Number(values.warmup);
const oldCli = values["old-cli"] ? path.resolve(values["old-cli"]) : undefined;
const externalDatabaseUrl = values["database-url"];
const hostileCaptures = Number(values.hostile);
const hostileBytes = Number(values["hostile-bytes"]);

// A Stripe-like event (see webhook-body.ts) whose id is each request's own.
const body = JSON.stringify({
  id: "evt_[<id>]",
  object: "event",
  type: "payment_intent.succeeded",
  created: 1_790_000_000,
  data: { object: { id: "pi_3Qbench", amount: 2_000, currency: "usd", status: "succeeded", metadata: { order: "A-10023" } } },
  livemode: false,
  pending_webhooks: 1,
  padding: "x".repeat(200),
});
const FILTER = { "body.type": { $startsWith: "payment_intent." }, "body.data.object.amount": { $gte: 1000 } };
/** Issue 41's filter: a composite $in of 1,000 small objects (about 10 KiB; the limit is 16). */
const HOSTILE_FILTER = { "body.items": { $in: Array.from({ length: 1000 }, (_, i) => ({ a: i })) } };
const HOSTILE_DESTINATIONS = 20;

/** Items that look like the filter's values and equal none of them, about `bytes` in all. */
function hostileBody(bytes: number): string {
  const parts: string[] = [];
  for (let size = 12, i = 0; size < bytes; i += 1) {
    const item = `{"a":${1000 + (i % 50_000)}}`;
    parts.push(item);
    size += item.length + 1;
  }
  return `{"items":[${parts.join(",")}]}`;
}

interface Side {
  label: string;
  url: string;
  rehook: Started;
  postgresPid: number;
  results: LoadResult[];
  cpu: { rehook: number; postgres: number; events: number };
}

const EMAIL = "bench@example.com";

/** Where one Rehook of the bench keeps its events: an embedded PostgreSQL, or a database on --database-url's server. */
type Database = Pick<EmbeddedDatabase, "url" | "stop">;

/** A database with a user and one endpoint forwarding to `sink` per name; answers their slugs. */
async function prepare(database: Database, cli: string, sink: string, names: string[]): Promise<Record<string, { id: string; slug: string }>> {
  const env = { DATABASE_URL: database.url, LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  await runRehook(["user", "create", "--email", EMAIL, "--password", "bench-password"], env, cli);
  const endpoints: Record<string, { id: string; slug: string }> = {};
  for (const name of names) endpoints[name] = JSON.parse(await runRehook(["endpoint", "create", "--email", EMAIL, "--name", name, "--destination", `${sink}/in`], env, cli));
  return endpoints;
}

/** Routing set in the database before the server starts (its rule caches start empty). */
async function route(database: Database, endpoints: Record<string, { id: string }>, sink: string): Promise<void> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    if (endpoints.filter) await client.query("update destinations set filter = $2 where endpoint_id = $1", [endpoints.filter.id, JSON.stringify(FILTER)]);
    if (endpoints.dedup) await client.query(`update endpoints set dedup = '{"key":"auto","window_s":3600}' where id = $1`, [endpoints.dedup.id]);
    if (endpoints.hostile) {
      await client.query("update destinations set filter = $2 where endpoint_id = $1", [endpoints.hostile.id, JSON.stringify(HOSTILE_FILTER)]);
      await client.query(
        `insert into destinations (id, endpoint_id, position, name, url, filter, created_at, updated_at)
         select gen_random_uuid(), $1, p, 'hostile', $2, $3, now(), now() from generate_series(1, $4::int - 1) p`,
        [endpoints.hostile.id, `${sink}/in`, JSON.stringify(HOSTILE_FILTER), HOSTILE_DESTINATIONS],
      );
    }
    if (endpoints["three destinations"]) {
      await client.query(
        `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at)
         select gen_random_uuid(), $1, p, 'more', $2, now(), now() from generate_series(1, 2) p`,
        [endpoints["three destinations"].id, `${sink}/in`],
      );
    }
  } finally {
    await client.end();
  }
}

async function main() {
  const mode = oldCli ? `older build ${oldCli} vs this one, one destination each` : "one destination vs a filter, dedup and three destinations";
  process.stdout.write(`bench:capture-routing  ${mode}; ${externalDatabaseUrl ? "external PostgreSQL" : "embedded PostgreSQL"}; ${connections} connections, ${rounds} alternating rounds of ${durationSeconds} s, node ${process.version}\n\n`);
  const dirs: string[] = [];
  const databases: Database[] = [];
  const children: Started[] = [];
  let hostile: { rehook: Started; slug: string; reference: string } | undefined;
  const openDatabase = async (): Promise<Database> => {
    if (externalDatabaseUrl) {
      const database = await freshExternalDatabase(externalDatabaseUrl);
      databases.push(database);
      return database;
    }
    const dir = await mkdtemp(path.join(tmpdir(), "rehook-bench-routing-"));
    dirs.push(dir);
    const database = await startEmbeddedPostgres({ dataDir: dir });
    databases.push(database);
    return database;
  };
  try {
    const bare = await startListening(path.join(here, "bare-server.js"), [], {});
    const sink = await startListening(path.join(here, "bare-server.js"), [], {});
    children.push(bare, sink);
    const sides: Side[] = [];
    const side = (label: string, rehook: Started, slug: string, postgresPid: number) =>
      sides.push({ label, url: `${rehook.url}/api/webhook/${slug}`, rehook, postgresPid, results: [], cpu: { rehook: 0, postgres: 0, events: 0 } });
    const start = async (database: Database, cli: string) => {
      const rehook = await startListening(cli, ["start"], { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ALLOW_PRIVATE_DESTINATIONS: "true" });
      children.push(rehook);
      return rehook;
    };
    if (oldCli) {
      for (const [label, cli] of [["older build", oldCli], ["this build", CLI]] as const) {
        const database = await openDatabase();
        const endpoints = await prepare(database, cli, sink.url, ["one destination"]);
        side(label, await start(database, cli), endpoints["one destination"]!.slug, await postmasterOf(database.url));
      }
    } else {
      const database = await openDatabase();
      const names = ["one destination", "filter", "dedup", "three destinations"];
      const endpoints = await prepare(database, CLI, sink.url, [...names, "hostile"]);
      await route(database, endpoints, sink.url);
      const rehook = await start(database, CLI);
      const pid = await postmasterOf(database.url);
      for (const name of names) side(name, rehook, endpoints[name]!.slug, pid);
      hostile = { rehook, slug: endpoints.hostile!.slug, reference: endpoints["one destination"]!.slug };
    }

    const load = (url: string, seconds: number) => runLoad({ url, connections, durationSeconds: seconds, body, uniqueIds: true });
    if (warmupSeconds > 0) for (const s of sides) await load(s.url, warmupSeconds);
    const bareResults: LoadResult[] = [];
    for (let round = 1; round <= rounds; round += 1) {
      bareResults.push(await load(bare.url, durationSeconds));
      process.stdout.write(`round ${round} ${"bare node:http".padEnd(20)} ${bareResults.at(-1)!.requestsPerSecond} req/s\n`);
      // The order rotates each round, so no side always follows another.
      const order = sides.map((_, i) => sides[(i + round - 1) % sides.length]!);
      for (const s of order) {
        const { result, micros } = await cpuDuring(
          { rehook: () => processCpuMicros(s.rehook.child.pid!), postgres: () => processTreeCpuMicros(s.postgresPid) },
          () => load(s.url, durationSeconds),
        );
        s.results.push(result);
        s.cpu.rehook += micros.rehook!;
        s.cpu.postgres += micros.postgres!;
        s.cpu.events += result.ok;
        process.stdout.write(`round ${round} ${s.label.padEnd(20)} ${result.requestsPerSecond} req/s   p50 ${result.latencyP50} ms   p99 ${result.latencyP99} ms   non-2xx ${result.notOk}   errors ${result.errors}\n`);
      }
    }
    const bareRps = median(bareResults.map((r) => r.requestsPerSecond));
    const reference = median(sides[0]!.results.map((r) => r.requestsPerSecond));
    process.stdout.write(`\nmedian bare node:http  ${bareRps} req/s\n`);
    for (const s of sides) {
      const rps = median(s.results.map((r) => r.requestsPerSecond));
      const us = (micros: number) => (s.cpu.events > 0 ? (micros / s.cpu.events).toFixed(1) : "n/a");
      process.stdout.write(
        `${s.label.padEnd(22)} ${String(rps).padStart(6)} req/s (${((100 * rps) / reference).toFixed(1)}% of ${sides[0]!.label}, ${((100 * rps) / bareRps).toFixed(1)}% of bare)   CPU per event: node ${us(s.cpu.rehook)} us, postgresql ${us(s.cpu.postgres)} us\n`,
      );
    }
    if (hostile && hostileCaptures > 0) await hostilePhase(hostile.rehook.url, hostile.slug, hostile.reference);
    const failures = sides.reduce((sum, s) => sum + s.results.reduce((n, r) => n + r.notOk + r.errors, 0), 0);
    process.stdout.write(`non-2xx or errors in all rounds: ${failures}\n`);
    if (failures > 0) process.exitCode = 1;
  } finally {
    for (const child of children) await stop(child.child);
    for (const database of databases) await database.stop();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

/** Asks /healthz every 10 ms while `work` runs; answers the slowest answer's time in ms. */
async function slowestHealthz(base: string, work: () => Promise<void>): Promise<number> {
  let slowest = 0;
  let done = false;
  const probe = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${base}/healthz`);
      await response.arrayBuffer();
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  try {
    await work();
  } finally {
    done = true;
    await probe;
  }
  return slowest;
}

/** Issue 41's hostile captures, one at a time, against as long a spell of small captures to the reference endpoint. */
async function hostilePhase(base: string, slug: string, reference: string): Promise<void> {
  const big = hostileBody(hostileBytes);
  const post = async (target: string, text: string) => {
    const response = await fetch(`${base}/api/webhook/${target}`, { method: "POST", headers: { "content-type": "application/json" }, body: text });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`a capture answered ${response.status}`);
  };
  const latencies: number[] = [];
  let spell = 0;
  const slowestHostile = await slowestHealthz(base, async () => {
    const started = performance.now();
    for (let i = 0; i < hostileCaptures; i += 1) {
      const one = performance.now();
      await post(slug, big);
      latencies.push(performance.now() - one);
    }
    spell = performance.now() - started;
  });
  const slowestBaseline = await slowestHealthz(base, async () => {
    const until = performance.now() + spell;
    while (performance.now() < until) await post(reference, body.replaceAll("[<id>]", `base_${Math.random().toString(36).slice(2)}`));
  });
  latencies.sort((a, b) => a - b);
  process.stdout.write(
    `\nhostile: ${hostileCaptures} captures of ${(hostileBytes / 1024 / 1024).toFixed(1)} MiB to ${HOSTILE_DESTINATIONS} destinations with a 1,000-object $in: capture ${latencies[0]!.toFixed(0)}-${latencies.at(-1)!.toFixed(0)} ms; slowest /healthz ${slowestHostile.toFixed(1)} ms (baseline, small captures to one destination for as long: ${slowestBaseline.toFixed(1)} ms)\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:capture-routing failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
