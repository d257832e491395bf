import type { EventStatus, HeaderList } from "@rehook/core";
import type { Pool } from "./pool.js";

/** One request as it arrived on a capture URL, ready to be stored. */
export interface CapturedRequest {
  id: string;
  slug: string;
  receivedAt: Date;
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
  contentType: string | null;
  clientIp: string | null;
  source: string;
  eventType: string;
}

export type CaptureWriteResult =
  | { kind: "stored"; endpointId: string; status: EventStatus }
  | { kind: "unknown_endpoint" };

export interface GroupCommitOptions {
  /** Most rows in one statement. */
  maxRows?: number;
  /** Most body bytes in one statement; a single larger body still goes alone. */
  maxBytes?: number;
  /** Statements in flight at once; later arrivals wait and join the next batch. */
  maxInFlight?: number;
}

interface Waiting {
  request: CapturedRequest;
  resolve(result: CaptureWriteResult): void;
  reject(error: unknown): void;
}

/*
 * One statement stores a whole batch. The slug is resolved inside the statement, so a
 * deleted endpoint answers 404 at once on every instance, with no cache to go stale.
 * FOR KEY SHARE waits out a concurrent delete and then skips the row, so a delete racing
 * a capture fails that capture alone (404), never the foreign key of the whole batch.
 * Bodies travel as one binary parameter ($8, sliced by offset and size): arrays of bytea
 * would go as hex text, twice the bytes and a parse per element.
 */
const INSERT_BATCH = `
with incoming as (
  select * from unnest(
    $1::uuid[], $2::text[], $3::timestamptz[], $4::text[], $5::text[], $6::text[],
    $7::json[], $9::int[], $10::int[], $11::text[], $12::text[], $13::text[], $14::text[]
  ) as t(id, slug, received_at, method, path, query, headers, body_offset, size_bytes, content_type, client_ip, source, event_type)
),
target as (
  select i.*, e.id as endpoint_id,
         case when e.destination_url is null then 'captured' else 'pending' end as status
  from incoming i join endpoints e on e.slug = i.slug
  for key share of e
)
insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type,
                    size_bytes, client_ip, source, event_type, status)
select id, endpoint_id, received_at, method, path, query, headers,
       substring($8::bytea from body_offset + 1 for size_bytes), content_type,
       size_bytes, client_ip, source, event_type, status
from target
returning id, endpoint_id, status`;

function batchParameters(requests: CapturedRequest[]): unknown[] {
  const columns: unknown[][] = Array.from({ length: 13 }, () => []);
  let offset = 0;
  for (const r of requests) {
    const values = [
      r.id, r.slug, r.receivedAt.toISOString(), r.method, r.path, r.query,
      JSON.stringify(r.headers), offset, r.body.byteLength, r.contentType, r.clientIp, r.source, r.eventType,
    ];
    values.forEach((value, column) => columns[column]!.push(value));
    offset += r.body.byteLength;
  }
  const bodies = Buffer.concat(requests.map((r) => r.body), offset);
  return [...columns.slice(0, 7), bodies, ...columns.slice(7)];
}

/**
 * Group commit for captures: requests that arrive while a statement is in flight are
 * stored together by the next one, so the database sees a few large transactions instead
 * of one commit (one fsync) per request. A caller's promise settles only after its row
 * is committed, or with the error that prevented it.
 */
export class GroupCommitWriter {
  private readonly queue: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxRows: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;

  constructor(
    private readonly pool: Pool,
    options: GroupCommitOptions = {},
  ) {
    this.maxRows = options.maxRows ?? 1_000;
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.maxInFlight = options.maxInFlight ?? 2;
  }

  write(request: CapturedRequest): Promise<CaptureWriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves once everything queued so far is committed (or failed). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.inFlight > 0) await new Promise((r) => setTimeout(r, 5));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Let the requests parsed in this turn of the event loop join the same batch.
    setImmediate(() => {
      this.scheduled = false;
      while (this.inFlight < this.maxInFlight && this.queue.length > 0) this.flush(this.takeBatch());
    });
  }

  private takeBatch(): Waiting[] {
    const batch: Waiting[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && batch.length < this.maxRows) {
      const size = this.queue[0]!.request.body.byteLength;
      if (batch.length > 0 && bytes + size > this.maxBytes) break;
      batch.push(this.queue.shift()!);
      bytes += size;
    }
    return batch;
  }

  private flush(batch: Waiting[]): void {
    this.inFlight += 1;
    this.store(batch)
      .catch(async (error: unknown) => {
        // One bad row must not fail its neighbours: retry them one by one, unless the
        // database itself is unreachable, in which case all of them fail the same way.
        if (batch.length === 1 || isConnectionError(error)) throw error;
        await Promise.all(batch.map((waiting) => this.store([waiting]).catch((e: unknown) => waiting.reject(e))));
      })
      .catch((error: unknown) => batch.forEach((waiting) => waiting.reject(error)))
      .finally(() => {
        this.inFlight -= 1;
        if (this.queue.length > 0) this.schedule();
      });
  }

  private async store(batch: Waiting[]): Promise<void> {
    // Named: each connection parses and plans the statement once, not once per batch.
    const result = await this.pool.query<{ id: string; endpoint_id: string; status: EventStatus }>({
      name: "rehook_capture_batch",
      text: INSERT_BATCH,
      values: batchParameters(batch.map((waiting) => waiting.request)),
    });
    const stored = new Map(result.rows.map((row) => [row.id, row]));
    for (const waiting of batch) {
      const row = stored.get(waiting.request.id);
      waiting.resolve(row ? { kind: "stored", endpointId: row.endpoint_id, status: row.status } : { kind: "unknown_endpoint" });
    }
  }
}

const CONNECTION_ERROR_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "57P01", "57P02", "57P03", "08000", "08003", "08006"]);

export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && CONNECTION_ERROR_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : "";
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Client has encountered a connection error/i.test(message);
}
