// pnpm bench:complete-statement — what the completion statement (packages/db deliveries.ts
// COMPLETE) costs PostgreSQL per stored attempt, without HTTP or workers: events captured with
// the fast path's lease on them (one destination), then completed as delivered in batches, the
// PostgreSQL server's CPU read from /proc. Besides the statement as it is, two what-ifs, made by
// editing its text before it is sent, to size its parts (neither is what Rehook runs):
//   "without the event's response copy": the event row keeps no copy of the answer's headers
//     and body (delivery_attempts has them);
//   "without the event row update": the event is not updated at all (not a valid statement:
//     its status would stay pending); what is left is the rest of the statement.
// --batch N (attempts per statement), --rows N (attempts per variant), --response-bytes N.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { uuidv7, uuidv7Timestamp } from "@rehook/core";
import { completeDeliveries, createPool, GroupCommitWriter, startEmbeddedPostgres, type DeliveryOutcome, type Pool } from "@rehook/db";
import { postmasterPid, processTreeCpuMicros } from "./cpu.js";
import { runRehook } from "./processes.js";

const { values } = parseArgs({
  options: {
    batch: { type: "string", default: "100" },
    rows: { type: "string", default: "15000" },
    "response-bytes": { type: "string", default: "1024" },
  },
});
const batchSize = Number(values.batch);
const rows = Number(values.rows);
const response = Buffer.alloc(Number(values["response-bytes"]), "x");

const VARIANTS: Array<[string, (text: string) => string]> = [
  ["as it is", (text) => text],
  [
    "without the event's response copy",
    (text) => text.replace(/\n\s*response_headers = l\.response_headers,\n\s*response_body = case when l\.body_size is null then null else substring\(\$2::bytea from l\.body_offset \+ 1 for l\.body_size\) end,/, "\n"),
  ],
  [
    "without the event row update (not valid)",
    (text) =>
      text.replace(
        /events_now as \(\n  update events e\n  set [\s\S]*?\n  where e\.id = s\.event_id\n  returning e\.id, e\.endpoint_id, o\.status as was, e\.status\n\)/,
        "events_now as (select o.id, o.endpoint_id, o.status as was, s.status from summed s join events o on o.id = s.event_id join latest l on l.id = s.event_id)",
      ),
  ],
];

/** A pool whose completion statements are sent as `edit` makes them (under a name of their own). */
function editedPool(url: string, name: string, edit: (text: string) => string): Pool {
  const pool = createPool({ databaseUrl: url, max: 1 });
  const query = pool.query.bind(pool) as (config: unknown, values?: unknown) => Promise<unknown>;
  (pool as unknown as { query: typeof query }).query = (config, params) => {
    const named = config as { name?: string; text: string };
    if (typeof config === "object" && named.name?.startsWith("rehook_complete_")) return query({ ...named, name: `${named.name}_${name}`, text: edit(named.text) }, params);
    return query(config, params);
  };
  return pool;
}

async function main() {
  process.stdout.write(`bench:complete-statement  ${rows} attempts per variant in batches of ${batchSize}, answers of ${response.byteLength} bytes, embedded PostgreSQL, node ${process.version}\n\n`);
  const dataDir = await mkdtemp(path.join(tmpdir(), "rehook-bench-complete-"));
  const database = await startEmbeddedPostgres({ dataDir });
  const env = { DATABASE_URL: database.url, LOG_LEVEL: "warn", ALLOW_PRIVATE_DESTINATIONS: "true" };
  const client = new pg.Client({ connectionString: database.url });
  const pool = createPool({ databaseUrl: database.url, max: 2 });
  try {
    await runRehook(["user", "create", "--email", "bench@example.com", "--password", "bench-password"], env);
    const endpoint = JSON.parse(await runRehook(["endpoint", "create", "--email", "bench@example.com", "--name", "bench", "--destination", "http://127.0.0.1:9/in"], env)) as { id: string; slug: string };
    await client.connect();
    const postgres = postmasterPid((await client.query<{ data_directory: string }>("show data_directory")).rows[0]!.data_directory)!;
    const destinationId = (await client.query<{ id: string }>("select id from destinations where endpoint_id = $1", [endpoint.id])).rows[0]!.id;
    const writer = new GroupCommitWriter(pool, { maxRows: 300, fastPath: { leaseMs: 3_600_000, hasRoom: () => true } });
    const body = Buffer.from(JSON.stringify({ id: "evt_bench", type: "payment_intent.succeeded", padding: "x".repeat(400) }));
    for (const [index, [label, edit]] of VARIANTS.entries()) {
      // Fresh events for each variant, leased on the event as the fast path stores them.
      const ids: string[] = [];
      for (let stored = 0; stored < rows; stored += 300) {
        await Promise.all(
          Array.from({ length: Math.min(300, rows - stored) }, () => {
            const id = uuidv7();
            ids.push(id);
            return writer.write({ id, slug: endpoint.slug, receivedAt: uuidv7Timestamp(id), method: "POST", path: "", query: "", headers: [["Content-Type", "application/json"]], body, contentType: "application/json", clientIp: "127.0.0.1", source: "stripe", eventType: "payment_intent.succeeded" });
          }),
        );
      }
      await client.query("checkpoint");
      const variantPool = editedPool(database.url, `v${index}`, edit);
      const before = processTreeCpuMicros(postgres);
      const started = performance.now();
      for (let at = 0; at < ids.length; at += batchSize) {
        const outcomes: DeliveryOutcome[] = ids.slice(at, at + batchSize).map((id) => ({
          id,
          destinationId,
          attempt: 1,
          heldOn: "event",
          probe: false,
          otherDeliveries: false,
          status: "delivered",
          retryInMs: null,
          startedAt: Date.now(),
          latencyMs: 3,
          responseStatus: 200,
          responseHeaders: [["content-type", "text/plain"], ["content-length", String(response.byteLength)]],
          responseBody: response,
          responseTruncated: false,
          error: null,
        }));
        const stored = await completeDeliveries(variantPool, outcomes);
        if (stored.length !== outcomes.length) throw new Error(`${label}: stored ${stored.length} of ${outcomes.length}`);
      }
      const wall = performance.now() - started;
      const cpu = processTreeCpuMicros(postgres) - before;
      await variantPool.end();
      process.stdout.write(`${label.padEnd(44)} PostgreSQL ${(cpu / ids.length).toFixed(1).padStart(6)} µs per attempt   wall ${((wall * 1000) / ids.length).toFixed(1).padStart(6)} µs per attempt\n`);
    }
  } finally {
    await client.end().catch(() => undefined);
    await pool.end();
    await database.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:complete-statement failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
