// The database's own write budget, without Rehook: INSERT loops of captured-event rows into
// the real `events` table (its partitions, indexes and constraints), committed one statement
// at a time from several connections. Rehook's capture is measured against it.
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { percentile } from "./percentile.js";

export interface InsertLoopOptions {
  connectionString: string;
  endpointId: string;
  body: string;
  connections: number;
  /** Rows per INSERT statement (each statement is its own transaction, one commit). */
  rowsPerCommit: number;
  durationSeconds: number;
}

export interface InsertLoopResult {
  rowsPerSecond: number;
  commitsPerSecond: number;
  commitP50Ms: number;
  commitP99Ms: number;
}

const HEADERS = JSON.stringify([
  ["content-type", "application/json"],
  ["user-agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"],
]);

// The columns a capture-only endpoint's event is stored with.
const INSERT = `
insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, client_ip,
                    source, event_type, status)
select r.id, $2, r.received_at, 'POST', '', '', $3::jsonb, $4::bytea, 'application/json', octet_length($4::bytea), '127.0.0.1',
       'stripe', 'invoice.paid', 'captured'
from unnest($1::uuid[], $5::timestamptz[]) as r(id, received_at)`;

/** A UUIDv7 of `ms` with random low bits (the events' ids are their receive time). */
function uuidv7At(ms: number): string {
  const random = randomBytes(10).toString("hex");
  const hex = `${ms.toString(16).padStart(12, "0")}7${random.slice(0, 3)}${((Number.parseInt(random[3]!, 16) & 0x3) | 0x8).toString(16)}${random.slice(4, 19)}`;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Runs the loop for `durationSeconds`; the rows it inserts stay (counted like captures). */
export async function rawInsertLoop(options: InsertLoopOptions): Promise<InsertLoopResult> {
  const body = Buffer.from(options.body);
  const commits: number[] = [];
  const started = performance.now();
  const deadline = started + options.durationSeconds * 1000;
  const worker = async () => {
    const client = new pg.Client({ connectionString: options.connectionString });
    await client.connect();
    try {
      while (performance.now() < deadline) {
        const now = Date.now();
        const ids = Array.from({ length: options.rowsPerCommit }, () => uuidv7At(now));
        const receivedAt = new Date(now).toISOString();
        const begun = performance.now();
        await client.query(INSERT, [ids, options.endpointId, HEADERS, body, ids.map(() => receivedAt)]);
        commits.push(performance.now() - begun);
      }
    } finally {
      await client.end();
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  const seconds = (performance.now() - started) / 1000;
  const sorted = commits.sort((a, b) => a - b);
  return {
    rowsPerSecond: Math.round((commits.length * options.rowsPerCommit) / seconds),
    commitsPerSecond: Math.round(commits.length / seconds),
    commitP50Ms: percentile(sorted, 50),
    commitP99Ms: percentile(sorted, 99),
  };
}
