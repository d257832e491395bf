// pnpm bench:forward — captures forwarded end to end to a sink on loopback, measured in one run
// beside the bare node:http baseline and a capture-only run of the same server:
//   capture only        an endpoint without destinations: what capture alone sustains;
//   one destination     the same load, each event forwarded to the sink;
//   three destinations  the same load, each event fanned out to three deliveries;
// so "delivered events per second" reads as a share of capture-only, and the p99 capture to
// delivered of three destinations beside one's. Each run has the server to itself (one after
// another, each drained before the next), with the CPU it cost Rehook and PostgreSQL per event.
// --database-url URL (a superuser's, on this machine): a fresh database on that server
// (PostgreSQL 15 with JIT, as production servers run) instead of an embedded PostgreSQL.
// --destinations N: only the forwarding run with N destinations (the former single run).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "@rehook/db";
import { freshExternalDatabase, postmasterOf } from "./bench-database.js";
import { cpuDuring, processCpuMicros, processTreeCpuMicros } from "./cpu.js";
import { runMixed } from "./forward-mixed.js";
import { runLoad, type LoadResult } from "./load.js";
import { CLI, peakRssMiB, runRehook, startListening, stop } from "./processes.js";

const here = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    // Writes V8 CPU profiles of Rehook's main thread and delivery workers into this directory.
    profile: { type: "string" },
    // Ten destinations, one of them never answering (see forward-mixed.ts).
    hang: { type: "boolean", default: false },
    // Ten destinations with retry policies, --failing percent of them answering 500.
    retries: { type: "boolean", default: false },
    failing: { type: "string", default: "10" },
    // FORWARD_TIMEOUT_MS for --hang and --retries.
    timeout: { type: "string", default: "30000" },
    // Only a forwarding run with this many destinations per endpoint (all to the sink, no filter).
    destinations: { type: "string" },
    "database-url": { type: "string" },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const externalDatabaseUrl = values["database-url"];
const body = JSON.stringify({ id: "evt_bench", type: "payment_intent.succeeded", data: { object: { amount: 2000 } }, padding: "x".repeat(400) });

/** One run of the bench: an endpoint with this many destinations (0: capture only). */
interface RunSpec {
  label: string;
  destinations: number;
}

const RUNS: RunSpec[] = values.destinations
  ? [{ label: `${values.destinations} destination(s)`, destinations: Number(values.destinations) }]
  : [
      { label: "capture only", destinations: 0 },
      { label: "one destination", destinations: 1 },
      { label: "three destinations", destinations: 3 },
    ];

interface RunResult {
  spec: RunSpec;
  load: LoadResult;
  pending: number;
  events: number;
  /** Events all of whose deliveries delivered, per second from the first capture to the last delivery. */
  deliveredEventsPerSecond: number;
  deliveries: number;
  failed: number;
  seconds: number;
  /** Per event: received_at to the end of its last delivery (ms). */
  p50Done: number;
  p99Done: number;
  /** Per delivery: received_at to the start of its send (ms). */
  p50Start: number;
  p99Start: number;
  rehookMicrosPerEvent: number;
  postgresMicrosPerEvent: number | null;
}

async function main() {
  process.stdout.write(
    `bench:forward  ${connections} connections for ${durationSeconds} s per run, body ${body.length} bytes, ${externalDatabaseUrl ? "external PostgreSQL" : "embedded PostgreSQL"}, node ${process.version}\n\n`,
  );
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-forward-"));
  const database = externalDatabaseUrl ? await freshExternalDatabase(externalDatabaseUrl) : await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  const sink = await startListening(path.join(here, "bare-server.js"), [], {});
  let rehook: Awaited<ReturnType<typeof startListening>> | undefined;
  try {
    const postgresPid = await postmasterOf(database.url).catch(() => undefined);
    const baseline = await runLoad({ url: sink.url, connections, durationSeconds: Math.min(durationSeconds, 5), body });
    process.stdout.write(`bare node:http baseline        ${baseline.requestsPerSecond} req/s\n`);

    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const createEndpoint = async (name: string, destinations: number) =>
      JSON.parse(
        await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", name, ...(destinations > 0 ? ["--destination", `${sink.url}/in`] : [])], env),
      ) as { id: string; slug: string };
    const warmup = await createEndpoint("warm-up", 1);
    const endpoints = [];
    for (const spec of RUNS) endpoints.push(await createEndpoint(spec.label, spec.destinations));
    const setup = new pg.Client({ connectionString: database.url });
    await setup.connect();
    for (const [index, spec] of RUNS.entries()) {
      if (spec.destinations < 2) continue;
      await setup.query(
        `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at)
         select gen_random_uuid(), $1, n, 'more', $3, now(), now() from generate_series(1, $2::int - 1) n`,
        [endpoints[index]!.id, spec.destinations, `${sink.url}/in`],
      );
    }
    await setup.end();
    const profileArgs = values.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] : [];
    rehook = await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" }, profileArgs);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    /** Waits until the endpoint has nothing pending (at most 120 s); returns what is left. */
    const drain = async (endpointId: string) => {
      const deadline = Date.now() + 120_000;
      let pending = -1;
      while (Date.now() < deadline) {
        pending = Number((await client.query("select count(*) as n from events where endpoint_id = $1 and status = 'pending'", [endpointId])).rows[0].n);
        if (pending === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return pending;
    };
    // Warm-up on its own endpoint (JIT, worker start, connection pools), left out of the figures.
    await runLoad({ url: `${rehook.url}/api/webhook/${warmup.slug}`, connections, durationSeconds: 2, body });
    await drain(warmup.id);

    const results: RunResult[] = [];
    for (const [index, spec] of RUNS.entries()) {
      const endpoint = endpoints[index]!;
      const readers: Record<string, () => number> = { rehook: () => processCpuMicros(rehook!.child.pid!) };
      if (postgresPid !== undefined) readers.postgres = () => processTreeCpuMicros(postgresPid);
      const { result, micros } = await cpuDuring(readers, async () => {
        const load = await runLoad({ url: `${rehook!.url}/api/webhook/${endpoint.slug}`, connections, durationSeconds, body });
        return { load, pending: await drain(endpoint.id) };
      });
      results.push({ spec, ...result, ...(await measure(client, endpoint.id)), ...perEvent(micros, result.load.ok) });
      await client.query("checkpoint").catch(() => undefined);
    }
    await client.end();
    report(results, baseline.requestsPerSecond, rehook.child.pid!);
  } finally {
    if (rehook) await stop(rehook.child);
    await stop(sink.child);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

function perEvent(micros: Record<string, number>, events: number) {
  return {
    rehookMicrosPerEvent: micros.rehook! / Math.max(events, 1),
    postgresMicrosPerEvent: micros.postgres === undefined ? null : micros.postgres / Math.max(events, 1),
  };
}

/**
 * Exact figures from every attempt: started_at is when the worker started sending (the same
 * machine's clock as received_at), latency_ms how long the send took. An event is delivered
 * when every one of its deliveries is, at the end of its last one.
 */
async function measure(client: pg.Client, endpointId: string) {
  const row = (
    await client.query(
      `with a as (
         select a.event_id, a.outcome, e.received_at, a.started_at,
                a.started_at + make_interval(secs => a.latency_ms / 1000.0) as done_at
         from delivery_attempts a join events e on e.id = a.event_id where e.endpoint_id = $1
       ),
       ev as (
         select event_id, bool_and(outcome = 'delivered') as delivered, min(received_at) as received_at, max(done_at) as done_at
         from a group by event_id
       )
       select (select count(*) from events where endpoint_id = $1) as events,
              (select count(*) from ev where delivered) as delivered_events,
              (select count(*) from a where outcome = 'delivered') as deliveries,
              (select count(*) from a where outcome = 'failed') as failed,
              coalesce(extract(epoch from (select max(done_at) from ev) - (select min(received_at) from ev)), 0) as seconds,
              (select percentile_cont(0.5) within group (order by extract(epoch from done_at - received_at) * 1000) from ev) as p50_done,
              (select percentile_cont(0.99) within group (order by extract(epoch from done_at - received_at) * 1000) from ev) as p99_done,
              (select percentile_cont(0.5) within group (order by extract(epoch from started_at - received_at) * 1000) from a) as p50_start,
              (select percentile_cont(0.99) within group (order by extract(epoch from started_at - received_at) * 1000) from a) as p99_start`,
      [endpointId],
    )
  ).rows[0];
  const seconds = Number(row.seconds);
  return {
    events: Number(row.events),
    deliveredEventsPerSecond: seconds > 0 ? Number(row.delivered_events) / seconds : 0,
    deliveries: Number(row.deliveries),
    failed: Number(row.failed),
    seconds,
    p50Done: Number(row.p50_done),
    p99Done: Number(row.p99_done),
    p50Start: Number(row.p50_start),
    p99Start: Number(row.p99_start),
  };
}

function report(results: RunResult[], bareRps: number, rehookPid: number) {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  process.stdout.write("\n");
  for (const r of results) {
    process.stdout.write(`${r.spec.label}\n`);
    process.stdout.write(`  captures answered 200         ${r.load.ok} (${r.load.requestsPerSecond} req/s, p99 ${r.load.latencyP99} ms, non-2xx ${r.load.notOk}, errors ${r.load.errors})\n`);
    process.stdout.write(
      `  CPU per captured event        Rehook ${Math.round(r.rehookMicrosPerEvent)} µs, PostgreSQL ${r.postgresMicrosPerEvent === null ? "not measured" : `${Math.round(r.postgresMicrosPerEvent)} µs`}\n`,
    );
    if (r.spec.destinations === 0) continue;
    process.stdout.write(`  delivered events / s          ${Math.round(r.deliveredEventsPerSecond)} (first capture to last delivery, ${r.seconds.toFixed(1)} s)\n`);
    process.stdout.write(`  deliveries / failed / pending ${r.deliveries} / ${r.failed} / ${r.pending}\n`);
    process.stdout.write(`  capture to delivered (event)  p50 ${ms(r.p50Done)}, p99 ${ms(r.p99Done)}\n`);
    process.stdout.write(`  capture to send start         p50 ${ms(r.p50Start)}, p99 ${ms(r.p99Start)}\n`);
  }
  const captureOnly = results.find((r) => r.spec.destinations === 0);
  const one = results.find((r) => r.spec.destinations === 1);
  const three = results.find((r) => r.spec.destinations === 3);
  process.stdout.write("\n");
  if (captureOnly && one) {
    const share = (100 * one.deliveredEventsPerSecond) / captureOnly.load.requestsPerSecond;
    process.stdout.write(`one destination: delivered events/s ${Math.round(one.deliveredEventsPerSecond)} = ${share.toFixed(0)}% of capture-only ${captureOnly.load.requestsPerSecond}/s (target >= 70%)\n`);
  }
  if (one && three) {
    process.stdout.write(`three destinations: p99 capture to delivered ${ms(three.p99Done)} = ${(three.p99Done / one.p99Done).toFixed(2)}x one destination's ${ms(one.p99Done)} (target <= 2x)\n`);
  }
  process.stdout.write(`bare node:http ${bareRps} req/s\n`);
  const rss = peakRssMiB(rehookPid);
  if (rss !== undefined) process.stdout.write(`rehook peak RSS ${rss} MiB\n`);
  if (results.some((r) => r.pending !== 0 || r.failed > 0)) process.exitCode = 1;
}

const run =
  values.hang || values.retries
    ? () =>
        runMixed({
          connections,
          durationSeconds,
          body,
          hang: values.hang,
          retries: values.retries,
          failingPercent: Number(values.failing),
          timeoutMs: Number(values.timeout),
        })
    : main;

run().catch((error: unknown) => {
  process.stderr.write(`bench:forward failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
