// pnpm bench:capture — durable capture throughput against a bare node:http baseline, same run, same machine.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "@rehook/db";
import { runLoad, type LoadResult } from "./load.js";
import { peakRssMiB, startListening, stop } from "./processes.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const CLI = path.resolve(here, "../../../apps/cli/dist/main.js");

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    warmup: { type: "string", default: "2" },
  },
});
const durationSeconds = Number(values.duration);
const connections = Number(values.connections);
const warmupSeconds = Number(values.warmup);

// A typical small webhook: a Stripe-like event of about 600 bytes.
const body = JSON.stringify({
  id: "evt_1QbenchAAAAAAAAAAAAAAAA",
  object: "event",
  type: "payment_intent.succeeded",
  created: 1_790_000_000,
  data: { object: { id: "pi_3Qbench", amount: 2_000, currency: "usd", status: "succeeded", metadata: { order: "A-10023" } } },
  livemode: false,
  pending_webhooks: 1,
  request: { id: "req_bench", idempotency_key: "5b8f1c2e-2b6b-4b8a-9a53-9e7f0f6f1a2b" },
  padding: "x".repeat(200),
});

async function measure(label: string, url: string): Promise<LoadResult> {
  if (warmupSeconds > 0) await runLoad({ url, connections, durationSeconds: warmupSeconds, body });
  const result = await runLoad({ url, connections, durationSeconds, body });
  process.stdout.write(`${label.padEnd(28)} ${String(result.requestsPerSecond).padStart(7)} req/s   p50 ${result.latencyP50} ms   p99 ${result.latencyP99} ms   2xx ${result.ok}   non-2xx ${result.notOk}   errors ${result.errors}\n`);
  return result;
}

async function cli(args: string[], env: Record<string, string>): Promise<string> {
  const { execFile } = await import("node:child_process");
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    ),
  );
}

async function main() {
  process.stdout.write(`bench:capture  ${connections} connections, ${durationSeconds} s per run (after ${warmupSeconds} s warm-up), body ${body.length} bytes\n`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" };
  try {
    const bare = await startListening(path.join(here, "bare-server.js"), [], {});
    const baseline = await measure("bare node:http (baseline)", bare.url);
    await stop(bare.child);

    await cli(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const warm = JSON.parse(await cli(["endpoint", "create", "--email", "bench@example.com", "--name", "warm-up"], env)) as { slug: string };
    const measured = JSON.parse(await cli(["endpoint", "create", "--email", "bench@example.com", "--name", "bench"], env)) as { id: string; slug: string };
    const rehook = await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" });
    if (warmupSeconds > 0) await runLoad({ url: `${rehook.url}/api/webhook/${warm.slug}`, connections, durationSeconds: warmupSeconds, body });
    const saved = warmupSeconds;
    const capture = await runLoad({ url: `${rehook.url}/api/webhook/${measured.slug}`, connections, durationSeconds, body });
    process.stdout.write(`${"rehook capture (durable)".padEnd(28)} ${String(capture.requestsPerSecond).padStart(7)} req/s   p50 ${capture.latencyP50} ms   p99 ${capture.latencyP99} ms   2xx ${capture.ok}   non-2xx ${capture.notOk}   errors ${capture.errors}\n`);
    const rss = peakRssMiB(rehook.child.pid!);
    await stop(rehook.child);
    void saved;

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const rows = Number((await client.query("select count(*) from events where endpoint_id = $1", [measured.id])).rows[0].count);
    await client.end();

    const ratio = capture.requestsPerSecond / baseline.requestsPerSecond;
    process.stdout.write(`\nratio rehook / bare: ${(ratio * 100).toFixed(1)}% (target >= 40%)\n`);
    process.stdout.write(`rows stored ${rows} for ${capture.ok} answers of 200: ${rows === capture.ok ? "every 200 has its row" : "MISMATCH"}\n`);
    if (rss !== undefined) process.stdout.write(`rehook peak RSS ${rss} MiB\n`);
    if (rows !== capture.ok || capture.notOk > 0) process.exitCode = 1;
  } finally {
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:capture failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
