// pnpm bench:forward — captures forwarded end to end to a sink on loopback, beside the bare
// node:http baseline measured in the same run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "@rehook/db";
import { runMixed } from "./forward-mixed.js";
import { runLoad } from "./load.js";
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
    // Destinations per endpoint (all to the sink, no filter): each capture fans out to this many deliveries.
    destinations: { type: "string", default: "1" },
  },
});
const durationSeconds = Number(values.duration);
const destinations = Number(values.destinations);
const connections = Number(values.connections);
const body = JSON.stringify({ id: "evt_bench", type: "payment_intent.succeeded", data: { object: { amount: 2000 } }, padding: "x".repeat(400) });


async function main() {
  process.stdout.write(`bench:forward  ${connections} connections for ${durationSeconds} s, body ${body.length} bytes, ${destinations} destination(s) per endpoint, node ${process.version}\n\n`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-forward-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  const sink = await startListening(path.join(here, "bare-server.js"), [], {});
  let rehook: Awaited<ReturnType<typeof startListening>> | undefined;
  try {
    const baseline = await runLoad({ url: sink.url, connections, durationSeconds: Math.min(durationSeconds, 5), body });
    process.stdout.write(`bare node:http baseline        ${baseline.requestsPerSecond} req/s\n`);

    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const createEndpoint = async (name: string) =>
      JSON.parse(
        await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", name, "--destination", `${sink.url}/in`], env),
      ) as { id: string; slug: string };
    const warmup = await createEndpoint("warm-up");
    const endpoint = await createEndpoint("forward");
    if (destinations > 1) {
      const setup = new pg.Client({ connectionString: database.url });
      await setup.connect();
      await setup.query(
        `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at)
         select gen_random_uuid(), p.id, n, 'more', $2, now(), now() from endpoints p, generate_series(1, $1::int - 1) n`,
        [destinations, `${sink.url}/in`],
      );
      await setup.end();
    }
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

    const capture = await runLoad({ url: `${rehook.url}/api/webhook/${endpoint.slug}`, connections, durationSeconds, body });
    const pending = await drain(endpoint.id);
    // Exact figures from every attempt: started_at is when the worker started sending (the
    // same machine's clock as received_at), latency_ms how long the send took; one row per
    // delivery (event and destination) when nothing fails.
    const stats = (
      await client.query(
        `with e as (
           select a.outcome as status, e.received_at, a.latency_ms,
                  a.started_at + make_interval(secs => a.latency_ms / 1000.0) as completed_at,
                  extract(epoch from a.started_at - e.received_at) * 1000 as to_start,
                  extract(epoch from a.started_at - e.received_at) * 1000 + a.latency_ms as to_done
           from delivery_attempts a join events e on e.id = a.event_id where e.endpoint_id = $1
         )
         select count(*) filter (where status = 'delivered') as delivered,
                count(*) filter (where status = 'failed') as failed,
                extract(epoch from max(completed_at) - min(received_at)) as seconds,
                percentile_cont(0.5) within group (order by to_done) as p50_done,
                percentile_cont(0.99) within group (order by to_done) as p99_done,
                percentile_cont(0.5) within group (order by to_start) as p50_start,
                percentile_cont(0.99) within group (order by to_start) as p99_start,
                percentile_cont(0.5) within group (order by latency_ms) as p50_send,
                percentile_cont(0.99) within group (order by latency_ms) as p99_send
         from e`,
        [endpoint.id],
      )
    ).rows[0];
    await client.end();
    const rss = peakRssMiB(rehook.child.pid!);
    const delivered = Number(stats.delivered);
    const seconds = Number(stats.seconds);
    process.stdout.write(`captures answered 200           ${capture.ok} (${capture.requestsPerSecond} req/s, non-2xx ${capture.notOk}, errors ${capture.errors})\n`);
    process.stdout.write(`delivered / failed / pending    ${delivered} / ${stats.failed} / ${pending}\n`);
    process.stdout.write(`deliveries per second           ${Math.round(delivered / seconds)} (first capture to last delivery, ${seconds.toFixed(1)} s)\n`);
    process.stdout.write(`capture to delivered            p50 ${Number(stats.p50_done).toFixed(1)} ms, p99 ${Number(stats.p99_done).toFixed(1)} ms\n`);
    process.stdout.write(`capture to forward start        p50 ${Number(stats.p50_start).toFixed(1)} ms, p99 ${Number(stats.p99_start).toFixed(1)} ms\n`);
    process.stdout.write(`send (request to full answer)   p50 ${Number(stats.p50_send).toFixed(1)} ms, p99 ${Number(stats.p99_send).toFixed(1)} ms\n`);
    if (rss !== undefined) process.stdout.write(`rehook peak RSS                 ${rss} MiB\n`);
    if (pending !== 0 || Number(stats.failed) > 0) process.exitCode = 1;
  } finally {
    if (rehook) await stop(rehook.child);
    await stop(sink.child);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
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
