// pnpm bench:capture — durable capture throughput against a bare node:http baseline,
// measured in the same run on the same machine, in alternating rounds.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "@rehook/db";
import { freshExternalDatabase, postmasterOf } from "./bench-database.js";
import { cpuDuring, processCpuMicros, processTreeCpuMicros } from "./cpu.js";
import { median, runLoad, type LoadResult } from "./load.js";
import { STRIPE_LIKE_BODY } from "./webhook-body.js";
import { STRIPE_SECRET, stripeSignature } from "./stripe-signature.js";
import { childPids, CLI, peakRssMiB, runRehook, startListening, stop } from "./processes.js";

const here = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "8" },
    connections: { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    // Writes V8 CPU profiles of Rehook's threads into this directory.
    profile: { type: "string" },
    warmup: { type: "string", default: "2" },
    // Also runs a second Rehook with METRICS_ENABLED=false and alternates it with the default
    // one (metrics on): what counting costs the capture path, measured in the same run.
    "compare-metrics": { type: "boolean", default: false },
    // Also captures to a second endpoint of the same Rehook that checks Stripe signatures
    // (reject_invalid, every request correctly signed) and alternates it with the default
    // endpoint: what a signature check costs per capture, measured in the same run.
    "compare-verification": { type: "boolean", default: false },
    // An external PostgreSQL on this machine (its CPU is read from /proc through its data
    // directory) instead of the embedded one.
    "database-url": { type: "string" },
    // Starts Rehook as `rehook start --workers N`: N capture processes on the port.
    workers: { type: "string", default: "1" },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const warmupSeconds = Number(values.warmup);
const compareMetrics = values["compare-metrics"]!;
const compareVerification = values["compare-verification"]!;
if (compareMetrics && compareVerification) throw new Error("give --compare-metrics or --compare-verification, not both");
const externalDatabaseUrl = values["database-url"];
const workers = Number(values.workers);

const body = STRIPE_LIKE_BODY;

function line(label: string, result: LoadResult): string {
  return `${label.padEnd(30)} ${String(result.requestsPerSecond).padStart(7)} req/s   p50 ${result.latencyP50} ms   p99 ${result.latencyP99} ms   2xx ${result.ok}   non-2xx ${result.notOk}   errors ${result.errors}`;
}


/** What GET /metrics reports of the captures: rows stored, and statements (batches) that stored them. */
async function captureCounters(url: string): Promise<{ stored: number; batches: number; batchRows: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (prefix: string) => Number(text.split("\n").find((l) => l.startsWith(prefix))?.split(" ")[1]);
  return {
    stored: value('rehook_events_captured_total{outcome="stored"} '),
    batches: value("rehook_capture_batch_rows_count "),
    batchRows: value("rehook_capture_batch_rows_sum "),
  };
}

/** Microseconds of CPU per acknowledged event, one decimal. */
const perEvent = (micros: number, events: number) => (events > 0 ? (micros / events).toFixed(1) : "n/a");

async function main() {
  process.stdout.write(
    `bench:capture  ${externalDatabaseUrl ? "external PostgreSQL" : "embedded PostgreSQL"}, ${connections} connections, ${rounds} alternating rounds of ${durationSeconds} s each (after ${warmupSeconds} s warm-up), body ${body.length} bytes, node ${process.version}${compareMetrics ? ", metrics off vs on" : ""}${compareVerification ? ", unsigned vs Stripe-verified endpoint" : ""}${workers > 1 ? `, rehook start --workers ${workers}` : ""}\n\n`,
  );
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-"));
  const database = externalDatabaseUrl ? await freshExternalDatabase(externalDatabaseUrl) : await startEmbeddedPostgres({ dataDir });
  const postgresPid = await postmasterOf(database.url);
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" };
  const children: Array<Awaited<ReturnType<typeof startListening>>> = [];
  try {
    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const endpoint = JSON.parse(await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", "bench"], env)) as { id: string; slug: string };
    // The instance without metrics captures to an endpoint of its own, so each one's rows can be counted.
    const quietEndpoint =
      compareMetrics || compareVerification
        ? (JSON.parse(await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", "bench quiet"], env)) as { id: string; slug: string })
        : undefined;
    if (compareVerification) {
      const rule = JSON.stringify({ scheme: "stripe", secret: STRIPE_SECRET, reject_invalid: true });
      await runRehook(["endpoint", "update", "--email", "bench@example.com", "--slug", quietEndpoint!.slug, "--verification", rule], env);
    }

    const bare = await startListening(path.join(here, "bare-server.js"), [], {});
    const profileArgs = values.profile ? ["--cpu-prof", `--cpu-prof-dir=${path.resolve(values.profile)}`] : [];
    const startArgs = ["start", "--workers", String(workers)];
    const rehook = await startListening(CLI, startArgs, { ...env, LOG_LEVEL: "info" }, profileArgs);
    children.push(bare, rehook);
    const quiet = compareMetrics ? await startListening(CLI, startArgs, { ...env, LOG_LEVEL: "info", METRICS_ENABLED: "false" }) : undefined;
    if (quiet) children.push(quiet);
    const bareUrl = bare.url;
    const captureUrl = `${rehook.url}/api/webhook/${endpoint.slug}`;
    // The other side: a second instance without metrics, or a verifying endpoint of this one.
    const quietUrl = quiet ? `${quiet.url}/api/webhook/${quietEndpoint!.slug}` : compareVerification ? `${rehook.url}/api/webhook/${quietEndpoint!.slug}` : undefined;
    // Signed afresh for each run of the load: Stripe's timestamps are good for five minutes.
    const quietHeaders = () => (compareVerification ? { "stripe-signature": stripeSignature(body, STRIPE_SECRET) } : undefined);

    if (warmupSeconds > 0) {
      await runLoad({ url: bareUrl, connections, durationSeconds: warmupSeconds, body });
      if (quietUrl) await runLoad({ url: quietUrl, connections, durationSeconds: warmupSeconds, body, headers: quietHeaders() });
      await runLoad({ url: captureUrl, connections, durationSeconds: warmupSeconds, body });
    }

    const bareResults: LoadResult[] = [];
    const captureResults: LoadResult[] = [];
    const quietResults: LoadResult[] = [];
    // CPU used over the measured rounds: the bare server's, and Rehook's and PostgreSQL's over
    // the rounds of the default Rehook (metrics on), against the requests each answered.
    const cpu = { bare: 0, bareRequests: 0, rehook: 0, postgres: 0, captured: 0, verifiedRehook: 0, verifiedPostgres: 0, verified: 0 };
    const readers = { bare: () => processCpuMicros(bare.child.pid!), rehook: () => (workers > 1 ? processTreeCpuMicros(rehook.child.pid!) : processCpuMicros(rehook.child.pid!)), postgres: () => processTreeCpuMicros(postgresPid) };
    for (let round = 1; round <= rounds; round += 1) {
      const { result: b, micros: bareMicros } = await cpuDuring({ bare: readers.bare }, () => runLoad({ url: bareUrl, connections, durationSeconds, body }));
      cpu.bare += bareMicros.bare!;
      cpu.bareRequests += b.ok;
      process.stdout.write(`${line(`round ${round} bare node:http`, b)}\n`);
      bareResults.push(b);
      // Which Rehook goes first alternates too, so neither always follows the bare server.
      const order = quietUrl && round % 2 === 0 ? (["quiet", "metrics"] as const) : (["metrics", "quiet"] as const);
      for (const side of order) {
        if (side === "quiet" && !quietUrl) continue;
        const { result: c, micros } = await cpuDuring({ rehook: readers.rehook, postgres: readers.postgres }, () =>
          side === "quiet" ? runLoad({ url: quietUrl!, connections, durationSeconds, body, headers: quietHeaders() }) : runLoad({ url: captureUrl, connections, durationSeconds, body }),
        );
        if (side === "metrics") {
          cpu.rehook += micros.rehook!;
          cpu.postgres += micros.postgres!;
          cpu.captured += c.ok;
        } else if (compareVerification) {
          cpu.verifiedRehook += micros.rehook!;
          cpu.verifiedPostgres += micros.postgres!;
          cpu.verified += c.ok;
        }
        const label = side === "quiet" ? (compareVerification ? "stripe-verified" : "metrics off") : compareMetrics ? "metrics on" : "capture";
        process.stdout.write(`${line(`round ${round} rehook ${label}`, c)}\n`);
        (side === "quiet" ? quietResults : captureResults).push(c);
      }
    }
    // A separate, untimed round records every acknowledged eventId (collecting them costs the
    // load generator CPU, so it stays out of the measured rounds), then each is looked up.
    const acknowledged: string[] = [];
    const verification = await runLoad({
      url: captureUrl,
      connections,
      durationSeconds: Math.min(durationSeconds, 3),
      body,
      onResponse: (status, text) => {
        if (status === 200) acknowledged.push(text.slice(-38, -2)); // {"received":true,"eventId":"<uuid>"}
      },
    });
    // With workers: the primary's and every worker's (the database runs apart, started by this bench).
    const rss = [rehook.child.pid!, ...childPids(rehook.child.pid!)].reduce((sum, pid) => sum + (peakRssMiB(pid) ?? 0), 0);
    // Requests cut off when the load stopped may still be committing: let them land first.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const counters = await captureCounters(rehook.url);
    const counted = counters.stored;
    for (const child of children) await stop(child.child);

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const stored = await client.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1", [endpoint.id]);
    // Every verified capture must have been stored as valid (a 401 would count as non-2xx above).
    const verifiedRows = compareVerification ? Number((await client.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1", [quietEndpoint!.id])).rows[0]!.n) : 0;
    const unverified = compareVerification
      ? Number((await client.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and signature is distinct from 'valid'", [quietEndpoint!.id])).rows[0]!.n)
      : 0;
    const found = await client.query<{ n: string }>("select count(*) as n from events where id = any($1::uuid[])", [acknowledged]);
    await client.end();

    const bareRps = median(bareResults.map((r) => r.requestsPerSecond));
    const captureRps = median(captureResults.map((r) => r.requestsPerSecond));
    const missing = acknowledged.length - Number(found.rows[0]!.n);
    const notOk = [...captureResults, ...quietResults, verification].reduce((sum, r) => sum + r.notOk + r.errors, 0);
    const p = (results: LoadResult[]) => `(p50 ${median(results.map((r) => r.latencyP50))} ms, p99 ${median(results.map((r) => r.latencyP99))} ms)`;
    process.stdout.write(`\nmedian bare node:http           ${bareRps} req/s\n`);
    if (compareMetrics) {
      const quietRps = median(quietResults.map((r) => r.requestsPerSecond));
      process.stdout.write(`median rehook, metrics off      ${quietRps} req/s   ${p(quietResults)}\n`);
      process.stdout.write(`median rehook, metrics on       ${captureRps} req/s   ${p(captureResults)}\n`);
      process.stdout.write(`metrics on / off                ${((100 * captureRps) / quietRps).toFixed(1)}%\n`);
    } else {
      process.stdout.write(`median rehook durable capture   ${captureRps} req/s   ${p(captureResults)}\n`);
    }
    if (compareVerification) {
      const verifiedRps = median(quietResults.map((r) => r.requestsPerSecond));
      process.stdout.write(`median rehook, Stripe-verified  ${verifiedRps} req/s   ${p(quietResults)}\n`);
      process.stdout.write(`verified / unsigned             ${((100 * verifiedRps) / captureRps).toFixed(1)}%\n`);
      process.stdout.write(`CPU per event, verified, node   ${perEvent(cpu.verifiedRehook, cpu.verified)} us\n`);
      process.stdout.write(`CPU per event, verified, pg     ${perEvent(cpu.verifiedPostgres, cpu.verified)} us\n`);
    }
    process.stdout.write(`ratio rehook / bare             ${((100 * captureRps) / bareRps).toFixed(1)}%   (target >= 40%)\n`);
    process.stdout.write(`CPU per request, bare node:http ${perEvent(cpu.bare, cpu.bareRequests)} us\n`);
    process.stdout.write(`CPU per event, rehook node      ${perEvent(cpu.rehook, cpu.captured)} us   (target <= 50 us)\n`);
    process.stdout.write(`CPU per event, postgresql       ${perEvent(cpu.postgres, cpu.captured)} us   (target <= 30 us)\n`);
    process.stdout.write(`verification round              ${acknowledged.length} answers of 200, ${missing} of them without a stored row; non-2xx or errors in all rounds: ${notOk}\n`);
    process.stdout.write(`rows stored in all rounds       ${stored.rows[0]!.n}\n`);
    // Every capture the metrics call stored is a row of this instance's endpoint, and the other way round.
    // With workers, a scrape reaches one of them: its counters are that worker's alone.
    const countedAll = workers === 1;
    // The verifying endpoint is this instance's too: its rows count.
    const storedHere = Number(stored.rows[0]!.n) + verifiedRows;
    if (countedAll) process.stdout.write(`metrics: stored captures        ${counted}${counted === storedHere ? " (= rows stored)" : " (NOT the rows stored)"}\n`);
    else process.stdout.write(`metrics: stored captures        ${counted} (one worker of ${workers}: counters are per worker)\n`);
    process.stdout.write(`capture statements              ${counters.batches}, ${(counters.batchRows / counters.batches).toFixed(1)} rows each on average\n`);
    if (rss > 0) process.stdout.write(`rehook peak RSS                 ${rss} MiB${workers > 1 ? " (all processes)" : ""}\n`);
    if (compareVerification) process.stdout.write(`verified rows not marked valid   ${unverified}\n`);
    if (unverified !== 0 || missing !== 0 || notOk !== 0 || (countedAll && counted !== storedHere)) process.exitCode = 1;
  } finally {
    for (const child of children) await stop(child.child);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:capture failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
