// pnpm bench:event-page — the event page for a 10 MiB body against the same page for a
// 1 KiB body, measured in the same run on the same server, in alternating requests.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { startEmbeddedPostgres } from "@rehook/db";
import { percentile } from "./percentile.js";
import { CLI, runRehook, startListening, stop } from "./processes.js";
import { signIn } from "./dashboard-session.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "20" },
    warmup: { type: "string", default: "3" },
    // The large body's size in MiB (at most the server's MAX_PAYLOAD_BYTES, 10 MiB by default).
    mib: { type: "string", default: "10" },
  },
});
const rounds = Number(values.rounds);
const warmup = Number(values.warmup);
const largeBytes = Math.floor(Number(values.mib) * 1024 * 1024);

const EMAIL = "bench@example.com";
const PASSWORD = "bench-password";
const TIMEOUT_MS = 30_000;

/** A JSON export of about `bytes` bytes (never more): rows of an order export. */
function jsonOfSize(bytes: number): string {
  const rows: string[] = [];
  let size = `{"type":"export.ready","rows":[]}`.length;
  for (let i = 0; ; i += 1) {
    const row = JSON.stringify({ id: `row_${i}`, sku: `SKU-${(i * 7919) % 100_000}`, quantity: i % 17, note: "lorem ipsum dolor sit amet" });
    if (size + row.length + 1 > bytes) break;
    rows.push(row);
    size += row.length + 1;
  }
  return `{"type":"export.ready","rows":[${rows.join(",")}]}`;
}

async function capture(server: string, slug: string, body: string): Promise<string> {
  const response = await fetch(`${server}/api/webhook/${slug}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  if (response.status !== 200) throw new Error(`capture answered ${response.status}`);
  return ((await response.json()) as { eventId: string }).eventId;
}

/** GET of a page, timed from the request to its last byte. */
async function timedGet(url: string, cookie: string): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { cookie, accept: "text/html" }, signal: AbortSignal.timeout(TIMEOUT_MS) });
  const body = await response.arrayBuffer();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  return { ms, bytes: body.byteLength };
}

interface Series {
  label: string;
  url: string;
  ms: number[];
  bytes: number;
}

function summary(series: Series): string {
  const sorted = [...series.ms].sort((a, b) => a - b);
  const fixed = (ms: number) => ms.toFixed(1).padStart(7);
  return `${series.label.padEnd(38)} p50 ${fixed(percentile(sorted, 50))} ms   p95 ${fixed(percentile(sorted, 95))} ms   min ${fixed(sorted[0]!)} ms   max ${fixed(sorted.at(-1)!)} ms   ${series.bytes.toLocaleString("en-US").padStart(9)} bytes`;
}

async function main() {
  const large = jsonOfSize(largeBytes);
  const small = jsonOfSize(1024);
  process.stdout.write(
    `bench:event-page  GET /events/{id} (HTML, signed in) for a ${Buffer.byteLength(large).toLocaleString("en-US")}-byte JSON body vs a ${Buffer.byteLength(small)}-byte one, ${rounds} alternating rounds after ${warmup} untimed, node ${process.version}\n\n`,
  );
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" };
  let rehook: Awaited<ReturnType<typeof startListening>> | undefined;
  try {
    await runRehook(["user", "create", "--email", EMAIL, "--password", PASSWORD], env);
    const endpoint = JSON.parse(await runRehook(["endpoint", "create", "--email", EMAIL, "--name", "event page"], env)) as { slug: string };
    rehook = await startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" });
    const server = rehook.url;
    const largeId = await capture(server, endpoint.slug, large);
    const smallId = await capture(server, endpoint.slug, small);
    const cookie = await signIn(server, { email: EMAIL, password: PASSWORD }, TIMEOUT_MS);

    const series: Series[] = [
      { label: "event page, 1 KiB body (baseline)", url: `${server}/events/${smallId}`, ms: [], bytes: 0 },
      { label: `event page, ${values.mib} MiB body`, url: `${server}/events/${largeId}`, ms: [], bytes: 0 },
      { label: "its data request (client navigation)", url: `${server}/events/${largeId}.data`, ms: [], bytes: 0 },
    ];
    for (let i = 0; i < warmup; i += 1) for (const s of series) await timedGet(s.url, cookie);
    for (let round = 0; round < rounds; round += 1) {
      for (const s of series) {
        const { ms, bytes } = await timedGet(s.url, cookie);
        s.ms.push(ms);
        s.bytes = bytes;
      }
    }
    for (const s of series) process.stdout.write(`${summary(s)}\n`);
    const median = (s: Series) => percentile([...s.ms].sort((a, b) => a - b), 50);
    process.stdout.write(`\nratio ${values.mib} MiB / baseline (p50)         ${(median(series[1]!) / median(series[0]!)).toFixed(2)}×\n`);
    process.stdout.write(`added by the large body (p50)           ${(median(series[1]!) - median(series[0]!)).toFixed(1)} ms, ${(series[1]!.bytes - series[0]!.bytes).toLocaleString("en-US")} bytes\n`);
  } finally {
    if (rehook) await stop(rehook.child);
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:event-page failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
