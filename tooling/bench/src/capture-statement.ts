// pnpm bench:capture-statement — what one capture costs PostgreSQL and Node, by batch size,
// without HTTP: the group-commit writer's statement against a raw multi-row INSERT of the
// same rows into the same table (the baseline), each measured from /proc in the same run.
// Splits the capture statement's cost into a part per row and a part per statement.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { uuidv7, uuidv7Timestamp } from "@rehook/core";
import { createPool, GroupCommitWriter, startEmbeddedPostgres, type CapturedRequest } from "@rehook/db";
import { cpuDuring, postmasterPid, processTreeCpuMicros } from "./cpu.js";
import { rawInsertLoop } from "./raw-insert.js";
import { STRIPE_LIKE_BODY } from "./webhook-body.js";
import { runRehook } from "./processes.js";

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "1,16,50,100,300" },
    // Rows stored per batch size and side.
    rows: { type: "string", default: "30000" },
    /** The endpoint forwards (nothing listens there): each row is stored pending, leased to the fast path as a running instance does. */
    destination: { type: "boolean", default: false },
  },
});
const sizes = values.sizes!.split(",").map(Number);
const rowsPerSize = Number(values.rows);

const body = STRIPE_LIKE_BODY;
const bodyBytes = Buffer.from(body);
const headers: CapturedRequest["headers"] = [
  ["Host", "127.0.0.1:8080"],
  ["Connection", "keep-alive"],
  ["Content-Type", "application/json"],
  ["User-Agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"],
  ["Content-Length", String(bodyBytes.byteLength)],
];

function captured(slug: string): CapturedRequest {
  const id = uuidv7();
  return {
    id,
    slug,
    receivedAt: uuidv7Timestamp(id),
    method: "POST",
    path: "",
    query: "",
    headers,
    body: bodyBytes,
    contentType: "application/json",
    clientIp: "127.0.0.1",
    source: "stripe",
    eventType: "payment_intent.succeeded",
  };
}

const perRow = (micros: number, rows: number) => (micros / rows).toFixed(1).padStart(6);

async function main() {
  process.stdout.write(`bench:capture-statement  ${rowsPerSize} rows per batch size and side, body ${body.length} bytes, node ${process.version}\n\n`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  const pool = createPool({ databaseUrl: database.url, max: 4 });
  const client = new pg.Client({ connectionString: database.url });
  try {
    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const endpoint = JSON.parse(await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", "bench", ...(values.destination ? ["--destination", "http://127.0.0.1:9/in"] : [])], env)) as { id: string; slug: string };
    await client.connect();
    const dataDirectory = (await client.query<{ data_directory: string }>("show data_directory")).rows[0]!.data_directory;
    const postgresPid = postmasterPid(dataDirectory)!;
    const readers = { postgres: () => processTreeCpuMicros(postgresPid), node: () => { const usage = process.cpuUsage(); return usage.user + usage.system; } };
    const stored = async () => Number((await client.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1", [endpoint.id])).rows[0]!.n);
    const writer = new GroupCommitWriter(pool, { maxRows: Math.max(...sizes), ...(values.destination ? { fastPath: { leaseMs: 60_000, hasRoom: () => true } } : {}) });

    process.stdout.write("rows per statement   raw INSERT: postgres us/row   capture statement: postgres us/row   node us/row\n");
    for (const size of sizes) {
      // Baseline: one connection, `size` rows per INSERT (one commit each), for about as many rows.
      const before = await stored();
      const raw = await cpuDuring({ postgres: readers.postgres }, () =>
        rawInsertLoop({ connectionString: database.url, endpointId: endpoint.id, body, connections: 1, rowsPerCommit: size, durationSeconds: Math.max(1, rowsPerSize / 20_000) }),
      );
      const rawRows = (await stored()) - before;
      // Rehook: batches of exactly `size` (all queued in one turn, so one statement each), one at a time.
      const batches = Math.ceil(rowsPerSize / size);
      const ours = await cpuDuring(readers, async () => {
        for (let batch = 0; batch < batches; batch += 1) await Promise.all(Array.from({ length: size }, () => writer.write(captured(endpoint.slug))));
      });
      const rows = batches * size;
      process.stdout.write(
        `${String(size).padStart(18)}   ${perRow(raw.micros.postgres!, rawRows).padStart(29)}   ${perRow(ours.micros.postgres!, rows).padStart(34)}   ${perRow(ours.micros.node!, rows).padStart(11)}\n`,
      );
    }
  } finally {
    await client.end().catch(() => undefined);
    await pool.end();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:capture-statement failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
