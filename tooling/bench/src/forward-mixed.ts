// bench:forward --hang | --retries: forwarding to ten destinations when some of them are
// broken, beside the same run's baselines (the bare node:http server, then all ten healthy).
//   --hang            one destination reads requests and never answers (within FORWARD_TIMEOUT_MS)
//   --retries         every endpoint has a retry policy; --failing <percent> of the destinations answer 500
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startEmbeddedPostgres } from "@rehook/db";
import { runLoad } from "./load.js";
import { CLI, peakRssMiB, runRehook, startListening, stop, type Started } from "./processes.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const DESTINATIONS = 10;
/** Retries due inside the run: three attempts, 200 ms then 400 ms apart (capped at 1 s). */
const RETRY_POLICY = { maxAttempts: 3, initialDelayMs: 200, maxDelayMs: 1_000 };

export interface MixedOptions {
  connections: number;
  durationSeconds: number;
  body: string;
  hang: boolean;
  retries: boolean;
  failingPercent: number;
  timeoutMs: number;
}

interface GroupStats {
  delivered: number;
  failed: number;
  pending: number;
  perSecond: number;
  seconds: number;
  p50Done: number;
  p99Done: number;
  p99Start: number;
  attempts: number;
}

const out = (line: string) => process.stdout.write(`${line}\n`);

export async function runMixed(options: MixedOptions): Promise<void> {
  const broken = options.hang ? 1 : Math.round((DESTINATIONS * options.failingPercent) / 100);
  const what = options.hang ? "1 of 10 destinations hangs" : `retry policies on every endpoint, ${broken} of 10 destinations answer 500`;
  out(`bench:forward  ${what}; ${options.connections} connections for ${options.durationSeconds} s per phase, FORWARD_TIMEOUT_MS ${options.timeoutMs}, node ${process.version}\n`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-mixed-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  const healthy = await startListening(path.join(here, "bare-server.js"), [], {});
  const brokenSink = await startListening(path.join(here, "bare-server.js"), options.hang ? ["--hang"] : ["--status", "500"], {});
  let rehook: Started | undefined;
  const client = new pg.Client({ connectionString: database.url });
  try {
    const baseline = await runLoad({ url: healthy.url, connections: options.connections, durationSeconds: Math.min(options.durationSeconds, 5), body: options.body });
    out(`bare node:http baseline        ${baseline.requestsPerSecond} req/s`);

    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const createEndpoint = async (name: string, destination: string) =>
      JSON.parse(await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", name, "--destination", destination], env)) as {
        id: string;
        slug: string;
      };
    const group = async (name: string, brokenCount: number) => {
      const endpoints = [];
      for (let i = 0; i < DESTINATIONS; i += 1) {
        const destination = i < brokenCount ? `${brokenSink.url}/in` : `${healthy.url}/in`;
        endpoints.push({ ...(await createEndpoint(`${name}-${i}`, destination)), broken: i < brokenCount });
      }
      return endpoints;
    };
    const warmup = await createEndpoint("warm-up", `${healthy.url}/in`);
    const allHealthy = await group("healthy", 0);
    const mixed = await group("mixed", broken);

    await client.connect();
    if (options.retries) {
      await client.query(
        "update destinations set retry_max_attempts = $1, retry_initial_delay_ms = $2, retry_max_delay_ms = $3 where endpoint_id <> $4",
        [RETRY_POLICY.maxAttempts, RETRY_POLICY.initialDelayMs, RETRY_POLICY.maxDelayMs, warmup.id],
      );
    }
    rehook = await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info", FORWARD_TIMEOUT_MS: String(options.timeoutMs) });
    const captureUrl = (slug: string) => `/api/webhook/${slug}`;

    /** Waits until these endpoints have nothing pending (at most 120 s); returns what is left. */
    const drain = async (ids: string[]) => {
      const deadline = Date.now() + 120_000;
      let pending = -1;
      while (Date.now() < deadline) {
        pending = Number((await client.query("select count(*) as n from events where endpoint_id = any($1::uuid[]) and status = 'pending'", [ids])).rows[0].n);
        if (pending === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      return pending;
    };
    const stats = async (ids: string[]): Promise<GroupStats> => {
      const row = (
        await client.query(
          `with e as (
             select id, status, completed_at, received_at,
                    extract(epoch from forwarded_at - received_at) * 1000 as to_start,
                    extract(epoch from forwarded_at - received_at) * 1000 + latency_ms as to_done
             from events where endpoint_id = any($1::uuid[])
           )
           select count(*) filter (where status = 'delivered') as delivered,
                  count(*) filter (where status = 'failed') as failed,
                  count(*) filter (where status = 'pending') as pending,
                  extract(epoch from max(completed_at) - min(received_at)) as seconds,
                  percentile_cont(0.5) within group (order by to_done) filter (where status = 'delivered') as p50_done,
                  percentile_cont(0.99) within group (order by to_done) filter (where status = 'delivered') as p99_done,
                  percentile_cont(0.99) within group (order by to_start) filter (where status = 'delivered') as p99_start,
                  (select count(*) from delivery_attempts a where a.event_id in (select id from e)) as attempts
           from e`,
          [ids],
        )
      ).rows[0];
      const seconds = Number(row.seconds);
      return {
        delivered: Number(row.delivered),
        failed: Number(row.failed),
        pending: Number(row.pending),
        seconds,
        perSecond: Math.round(Number(row.delivered) / seconds),
        p50Done: Number(row.p50_done),
        p99Done: Number(row.p99_done),
        p99Start: Number(row.p99_start),
        attempts: Number(row.attempts),
      };
    };
    const report = (label: string, s: GroupStats) => {
      out(`${label.padEnd(31)}delivered ${s.delivered} / failed ${s.failed} / pending ${s.pending}`);
      out(`${"".padEnd(31)}${s.perSecond} deliveries/s (first capture to last result, ${s.seconds.toFixed(1)} s), ${s.attempts} attempts`);
      out(`${"".padEnd(31)}capture to delivered p50 ${s.p50Done.toFixed(1)} ms, p99 ${s.p99Done.toFixed(1)} ms; capture to forward start p99 ${s.p99Start.toFixed(1)} ms`);
    };
    const load = async (endpoints: Array<{ slug: string }>) => {
      const result = await runLoad({
        url: rehook!.url,
        paths: endpoints.map((endpoint) => captureUrl(endpoint.slug)),
        connections: options.connections,
        durationSeconds: options.durationSeconds,
        body: options.body,
      });
      out(`captures answered 200          ${result.ok} (${result.requestsPerSecond} req/s, non-2xx ${result.notOk}, errors ${result.errors})`);
      return result;
    };

    // Warm-up on its own endpoint (JIT, worker start, connection pools), left out of the figures.
    await runLoad({ url: `${rehook.url}${captureUrl(warmup.slug)}`, connections: options.connections, durationSeconds: 2, body: options.body });
    await drain([warmup.id]);

    out("\nphase 1: all ten destinations healthy (baseline)");
    const first = await load(allHealthy);
    const healthyIds = allHealthy.map((endpoint) => endpoint.id);
    await drain(healthyIds);
    const base = await stats(healthyIds);
    report("ten healthy", base);

    out(`\nphase 2: ${what}`);
    const second = await load(mixed);
    const goodIds = mixed.filter((endpoint) => !endpoint.broken).map((endpoint) => endpoint.id);
    const brokenIds = mixed.filter((endpoint) => endpoint.broken).map((endpoint) => endpoint.id);
    // A hanging destination's events end at FORWARD_TIMEOUT_MS per slot: not waited for.
    await drain(options.hang ? goodIds : [...goodIds, ...brokenIds]);
    const good = await stats(goodIds);
    const bad = await stats(brokenIds);
    report(`the ${goodIds.length} healthy`, good);
    if (options.hang) {
      // Still pending: held by this instance (leased: in flight or waiting in memory) or handed back to the database.
      const held = (
        await client.query(
          `select count(*) filter (where leased) as leased, count(*) as pending from (
             select lease_expires_at > now() as leased from deliveries where endpoint_id = any($1::uuid[]) and status = 'pending'
             union all
             -- An only delivery the fast path holds on its event (no row yet).
             select true from events where endpoint_id = any($1::uuid[]) and fast_path_destination_id is not null) d`,
          [brokenIds],
        )
      ).rows[0];
      out(`${"the hanging one".padEnd(31)}pending ${held.pending}: ${held.leased} leased by the instance (in flight or waiting), the rest handed back unleased`);
    } else {
      report(`the ${brokenIds.length} failing`, bad);
    }

    out("\nsummary");
    out(`healthy p99 capture to delivered  ${good.p99Done.toFixed(1)} ms (baseline, all ten healthy: ${base.p99Done.toFixed(1)} ms)`);
    out(`healthy deliveries per second     ${good.perSecond} (baseline ${base.perSecond}; bare node:http ${baseline.requestsPerSecond} req/s)`);
    out(`captures per second               ${second.requestsPerSecond} (baseline ${first.requestsPerSecond})`);
    if (options.retries) {
      const tried = bad.failed > 0 ? (bad.attempts / bad.failed).toFixed(2) : "-";
      out(`failing events                    ${bad.failed} failed after ${tried} attempts each; attempts per second, all ten: ${Math.round((good.attempts + bad.attempts) / Math.max(good.seconds, bad.seconds))}`);
    }
    const rss = peakRssMiB(rehook.child.pid!);
    if (rss !== undefined) out(`rehook peak RSS                   ${rss} MiB`);
    if (base.pending + base.failed + good.pending + good.failed > 0) process.exitCode = 1;
  } finally {
    await client.end().catch(() => undefined);
    // The broken destination first: requests it holds open end, so Rehook stops without waiting for them.
    await stop(brokenSink.child);
    if (rehook) await stop(rehook.child);
    await stop(healthy.child);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
