// pnpm bench:forward — captures forwarded end to end to a sink on loopback, beside the bare
// node:http baseline measured in the same run.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "@rehook/db";
import { runLoad } from "./load.js";
import { CLI, peakRssMiB, runRehook, startListening, stop } from "./processes.js";

const here = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "100" },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const body = JSON.stringify({ id: "evt_bench", type: "payment_intent.succeeded", data: { object: { amount: 2000 } }, padding: "x".repeat(400) });


async function main() {
  process.stdout.write(`bench:forward  ${connections} connections for ${durationSeconds} s, body ${body.length} bytes, node ${process.version}\n\n`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-forward-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  const sink = await startListening(path.join(here, "bare-server.js"), [], {});
  let rehook: Awaited<ReturnType<typeof startListening>> | undefined;
  try {
    const baseline = await runLoad({ url: sink.url, connections, durationSeconds: Math.min(durationSeconds, 5), body });
    process.stdout.write(`bare node:http baseline        ${baseline.requestsPerSecond} req/s\n`);

    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const endpoint = JSON.parse(
      await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", "forward", "--destination", `${sink.url}/in`], env),
    ) as { id: string; slug: string };
    rehook = await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" });
    const capture = await runLoad({ url: `${rehook.url}/api/webhook/${endpoint.slug}`, connections, durationSeconds, body });

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const drainDeadline = Date.now() + 120_000;
    let pending = -1;
    while (Date.now() < drainDeadline) {
      pending = Number((await client.query("select count(*) as n from events where endpoint_id = $1 and status = 'pending'", [endpoint.id])).rows[0].n);
      if (pending === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const stats = (
      await client.query(
        `select count(*) filter (where status = 'delivered') as delivered,
                count(*) filter (where status = 'failed') as failed,
                extract(epoch from max(completed_at) - min(received_at)) as seconds,
                percentile_cont(0.5) within group (order by extract(epoch from completed_at - received_at) * 1000) as p50_done,
                percentile_cont(0.99) within group (order by extract(epoch from completed_at - received_at) * 1000) as p99_done,
                percentile_cont(0.5) within group (order by extract(epoch from completed_at - received_at) * 1000 - latency_ms) as p50_start
         from events where endpoint_id = $1`,
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
    process.stdout.write(`capture to forward start (max)  p50 ${Number(stats.p50_start).toFixed(1)} ms (completed_at - latency - received_at: an upper bound)\n`);
    if (rss !== undefined) process.stdout.write(`rehook peak RSS                 ${rss} MiB\n`);
    if (pending !== 0 || Number(stats.failed) > 0) process.exitCode = 1;
  } finally {
    if (rehook) await stop(rehook.child);
    await stop(sink.child);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:forward failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
