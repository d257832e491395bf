// pnpm bench:scale [--events N] [--days D] [--keep] [--database-url URL] — Rehook with millions of stored events: capture
// throughput on an empty database and on a full one, the listing pages of the API and the
// dashboard, an endpoint delete with its background purge, and the drop of a retention day.
// Events are seeded with SQL straight into the real schema (partitions, counts, health
// counters), spread evenly over the last D days. With --database-url (a server's admin URL)
// it runs on a database of its own on that server instead of an embedded PostgreSQL.
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import pg from "pg";
import { SEARCH_INDEX_HOURS, SEARCH_INDEX_JOB, SEARCH_INDEX_LAG_MS, uuidv7Floor } from "@rehook/core";
import { dropEventPartition, ensureEventPartitions, eventPartitions, indexNextEvents, restartSearchIndex, startEmbeddedPostgres, type EmbeddedDatabase, type EventPartition } from "@rehook/db";
import { runLoad, type LoadResult } from "./load.js";
import { percentile } from "./percentile.js";
import { rawInsertLoop } from "./raw-insert.js";
import { CLI, peakRssMiB, runRehook, startListening, stop, type Started } from "./processes.js";
import { signIn } from "./dashboard-session.js";

const here = path.dirname(fileURLToPath(import.meta.url));

const { values } = parseArgs({
  options: {
    events: { type: "string", default: "10000000" },
    days: { type: "string", default: "30" },
    /** Leave the database's directory behind (for EXPLAIN afterwards); its path is printed. */
    keep: { type: "boolean", default: false },
    /** An existing PostgreSQL (a superuser's URL): the bench creates a database of its own there, dropped afterwards unless --keep. */
    "database-url": { type: "string" },
  },
});
const EVENTS = Number(values.events);
const DAYS = Number(values.days);

const CONNECTIONS = 50;
const LOAD_SECONDS = 10;
const WARMUP_SECONDS = 2;
/** Timed requests per listing, after WARMUP_REQUESTS untimed ones. */
const SAMPLES = 30;
const WARMUP_REQUESTS = 3;
const CURSOR_PAGES = 500;
/** The deepest offset the API allows. */
const MAX_OFFSET = 10_000;
/** One INSERT … SELECT seeds at most this many rows (a day, or part of one). */
const ROWS_PER_INSERT = 500_000;
/** Seed statements running at once (PostgreSQL has the cores to itself meanwhile). */
const SEED_WORKERS = Math.max(1, Math.min(4, availableParallelism()));
/** The big endpoint's share of the events, in percent; the other five share the rest. */
const BIG_SHARE = 20;
const NEEDLE = "needle-7f3a";
const NEEDLE_EVENTS = 100;
/** A text in a handful of the last day's events (the search index's case: the bodies around it match nothing). */
const RARE = "rare-91c2";
const RARE_EVENTS = 5;
/** A text in most bodies: the newest slices fill the page. */
const COMMON = "lorem ipsum";
/** How long the search index may take to catch up with the seed before the reads start. */
const INDEX_CATCH_UP_LIMIT_MS = 30 * 60_000;
/** Rows per statement when the bench fills the index itself. */
const SEARCH_FILL_BATCH_ROWS = 5_000;
const PURGE_POLL_MS = 2_000;
const PURGE_LIMIT_MS = 15 * 60_000;
/** Nothing listens there: forwarding endpoints only need a destination; their seeded events are final. */
const DESTINATION = "http://127.0.0.1:9/in";
const EMAIL = "scale@example.com";
const PASSWORD = "bench-password-scale";
/** Bounds on what could otherwise hang: a server start, one HTTP request, one SQL statement. */
const START_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 120_000;
const STATEMENT_TIMEOUT_MS = 30 * 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** What the figures are held to (the table's last column). */
const TARGETS = {
  captureEmpty: ">= 40% of bare",
  captureFull: ">= 90% of empty",
  page: "p95 <= 50 ms",
  deepPage: "<= 50 ms, as the first page",
  offset: "p95 <= 500 ms",
  search: "p95 <= 1000 ms",
  deleteAnswer: "204 within 2 s",
  purge: "gone within 15 min",
  dropDay: "<= 5 s",
};

// A typical small webhook: a Stripe-like event of about 500 bytes.
const body = JSON.stringify({
  id: "evt_1QscaleAAAAAAAAAAAAAAAA",
  object: "event",
  type: "invoice.paid",
  created: 1_790_000_000,
  data: { object: { id: "in_1Qscale", amount_paid: 4_900, currency: "usd", customer: "cus_Qscale", status: "paid", metadata: { plan: "pro" } } },
  livemode: false,
  pending_webhooks: 1,
  request: { id: "req_scale", idempotency_key: "0c8f4a57-1a3e-4c1b-9b7e-2f3a4d5e6f70" },
  padding: "x".repeat(160),
});

interface BenchEndpoint {
  id: string;
  slug: string;
}

interface Account {
  apiKey: string;
  /** Capture-only, BIG_SHARE% of the events; deleted in phase 6. */
  big: BenchEndpoint;
  captureA: BenchEndpoint;
  captureB: BenchEndpoint;
  forwarding: BenchEndpoint[];
  /** Where the raw INSERT loops write (emptied after the empty-database run, so the searched day is not all loop rows). */
  raw: BenchEndpoint;
}

interface TableRow {
  figure: string;
  p50: string;
  p95: string;
  target: string;
}

const table: TableRow[] = [];
/** Correctness failures: the run is broken (slowness never is). */
const problems: string[] = [];

const out = (line = "") => process.stdout.write(`${line}\n`);
const progress = (line: string) => process.stderr.write(`${line}\n`);
const ms = (value: number) => `${value.toFixed(1)} ms`;
const rowsPerSecond = (rows: number, milliseconds: number) => `${Math.round((rows * 1000) / milliseconds).toLocaleString("en-US")} rows/s`;

function addLatencyRow(figure: string, samples: number[], target: string): void {
  const sorted = [...samples].sort((a, b) => a - b);
  table.push({ figure, p50: ms(percentile(sorted, 50)), p95: ms(percentile(sorted, 95)), target });
  out(`${figure.padEnd(58)} p50 ${ms(percentile(sorted, 50)).padStart(9)}   p95 ${ms(percentile(sorted, 95)).padStart(9)}`);
}

function addValueRow(figure: string, value: string, target = "—"): void {
  table.push({ figure, p50: value, p95: "—", target });
  out(`${figure.padEnd(58)} ${value}`);
}

function check(ok: boolean, problem: string): void {
  if (!ok) problems.push(problem);
}

/** Runs one measurement; a failure becomes its row and a problem, and the next measurement still runs. */
async function attempt(figure: string, target: string, measure: () => Promise<void>): Promise<void> {
  try {
    await measure();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    addValueRow(figure, `failed: ${message.slice(0, 200)}`, target);
    problems.push(`${figure}: ${message}`);
  }
}

async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
}

// ---------------------------------------------------------------- phase 1: the account

async function createAccount(env: Record<string, string>): Promise<Account> {
  await runRehook(["user", "create", "--email", EMAIL, "--password", PASSWORD], env);
  // An admin key: phase 6 deletes an endpoint, which needs the admin role.
  const apiKey = (await runRehook(["apikey", "create", "--email", EMAIL, "--name", "scale", "--role", "admin"], env)).trim().split("\n").at(-1)!;
  const endpoint = async (name: string, destination?: string): Promise<BenchEndpoint> => {
    const args = ["endpoint", "create", "--email", EMAIL, "--name", name, ...(destination ? ["--destination", destination] : [])];
    const { id, slug } = JSON.parse(await runRehook(args, env)) as BenchEndpoint;
    return { id, slug };
  };
  return {
    apiKey,
    big: await endpoint("big"),
    captureA: await endpoint("capture-a"),
    captureB: await endpoint("capture-b"),
    forwarding: [await endpoint("forward-a", DESTINATION), await endpoint("forward-b", DESTINATION), await endpoint("forward-c", DESTINATION)],
    raw: await endpoint("raw-insert"),
  };
}

/** The seeded endpoints in the order the seed statement picks them: the big one first, the forwarding ones last. */
const seedOrder = (account: Account) => [account.big, account.captureA, account.captureB, ...account.forwarding];

// ---------------------------------------------------------------- phases 2 and 5: capture

/**
 * `rehook start`, given START_TIMEOUT_MS to say it listens. Its "listening on" line is an
 * info log, so the server logs at info (warnings and errors alone would hide it).
 */
async function startRehook(env: Record<string, string>): Promise<Started> {
  const starting = startListening(CLI, ["start"], { ...env, LOG_LEVEL: "info" });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`rehook start did not listen within ${START_TIMEOUT_MS / 1000} s`)), START_TIMEOUT_MS);
  });
  try {
    return await Promise.race([starting, timeout]);
  } catch (error) {
    // One that starts after all is stopped at once.
    void starting.then((late) => stop(late.child), () => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** Loads a capture URL (after an untimed warm-up: JIT, pools); answers the timed run. */
async function captureLoad(server: string, endpoint: BenchEndpoint): Promise<LoadResult> {
  const url = `${server}/api/webhook/${endpoint.slug}`;
  await runLoad({ url, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS, body });
  const result = await runLoad({ url, connections: CONNECTIONS, durationSeconds: LOAD_SECONDS, body });
  check(result.notOk === 0 && result.errors === 0, `captures to ${endpoint.slug}: ${result.notOk} non-2xx, ${result.errors} errors`);
  return result;
}

async function bareLoad(): Promise<LoadResult> {
  const bare = await startListening(path.join(here, "bare-server.js"), [], {});
  try {
    await runLoad({ url: bare.url, connections: CONNECTIONS, durationSeconds: WARMUP_SECONDS, body });
    return await runLoad({ url: bare.url, connections: CONNECTIONS, durationSeconds: LOAD_SECONDS, body });
  } finally {
    await stop(bare.child);
  }
}

/** The raw INSERT loops' shapes: one row per commit from many connections, and batches of 100 from a few. */
const RAW_INSERT_SHAPES = [
  { rowsPerCommit: 1, connections: 16 },
  { rowsPerCommit: 100, connections: 4 },
];

/** The database's write budget with `stored` events present: raw INSERT loops, no Rehook running. */
async function rawInsertRows(databaseUrl: string, endpoint: BenchEndpoint, stored: string): Promise<void> {
  for (const shape of RAW_INSERT_SHAPES) {
    const result = await rawInsertLoop({ connectionString: databaseUrl, endpointId: endpoint.id, body, durationSeconds: LOAD_SECONDS, ...shape });
    addValueRow(
      `raw INSERT loop, ${shape.rowsPerCommit} row(s) per commit, ${shape.connections} connections, ${stored}`,
      `${result.rowsPerSecond} rows/s (commit p50 ${result.commitP50Ms.toFixed(1)} ms, p99 ${result.commitP99Ms.toFixed(1)} ms)`,
    );
  }
}

const describeLoad = (result: LoadResult) => `${result.requestsPerSecond} req/s (p50 ${result.latencyP50} ms, p99 ${result.latencyP99} ms)`;

// ---------------------------------------------------------------- phase 3: the seed

/**
 * One chunk of rows g in [from, to) of the n seeded events. Row g is received at
 * start + g·span/n (evenly spread); its id is the UUIDv7 of that millisecond, its other
 * bits from md5(g). Every 100 rows: BIG_SHARE to the big endpoint, the rest evenly to the
 * five others; the forwarding ones' events are final (about 90% delivered, 10% failed), each
 * with its one delivery to the endpoint's first destination ($10, by endpoint index).
 * Rows needle_from + k·needle_step (k < NEEDLE_EVENTS) carry the needle in their body, and
 * RARE_EVENTS rows halfway between some of those the rare text.
 * The other pseudo-random choices come from hashint8extended (much cheaper than md5), and
 * the body is one format() (json_build_object costs three times as much), so the insert
 * itself, with its indexes, is most of the work.
 */
const SEED_CHUNK = `
with rows as (
  select g, $6::bigint + g * $7::bigint / $5::bigint as ms,
         (hashint8extended(g, 1) & 2147483647)::int as status_roll,
         (hashint8extended(g, 2) & 2147483647)::int as kind_roll,
         lpad(to_hex(hashint8extended(g, 3)), 16, '0') || lpad(to_hex(hashint8extended(g, 4)), 16, '0') as token,
         case when g % 100 < ${BIG_SHARE} then 1 else 2 + ((g % 100) - ${BIG_SHARE}) * 5 / (100 - ${BIG_SHARE}) end as endpoint_index,
         g >= $8::bigint and (g - $8::bigint) % $9::bigint = 0 and (g - $8::bigint) / $9::bigint < ${NEEDLE_EVENTS} as needle,
         g >= $8::bigint and (g - $8::bigint - $9::bigint / 2) % ($9::bigint * ${NEEDLE_EVENTS / RARE_EVENTS}) = 0
           and (g - $8::bigint) / ($9::bigint * ${NEEDLE_EVENTS / RARE_EVENTS}) < ${RARE_EVENTS} and $9::bigint >= 2 as rare
  from generate_series($3::bigint, $4::bigint - 1) g
),
shaped as (
  select r.*, r.endpoint_index >= 4 as forwarding,
         (array['stripe', 'stripe', 'github', 'shopify', 'unknown'])[r.kind_roll % 5 + 1] as source,
         (array['invoice.paid', 'charge.failed', 'push', 'orders/create', 'unknown'])[r.kind_roll % 5 + 1] as event_type,
         case when r.endpoint_index < 4 then 'captured' when r.status_roll % 10 = 0 then 'failed' else 'delivered' end as status,
         20 + r.status_roll % 480 as latency
  from rows r
),
bodied as (
  select s.*, convert_to(format(
           '{"id":"evt_%s","object":"event","type":"%s","created":%s,"livemode":false,"data":{"object":{"id":"obj_%s",'
           '"customer":"cus_%s","amount":%s,"currency":"usd","reference":"%s","metadata":{"order":"A-%s","note":"%s"}}},'
           '"request":{"id":"req_%s","idempotency_key":"%s"}}',
           substr(s.token, 1, 24), s.event_type, s.ms / 1000, substr(s.token, 5, 20), substr(s.token, 9, 14), s.kind_roll % 100000,
           case when s.needle then '${NEEDLE}' when s.rare then '${RARE}' else 'ref-' || substr(s.token, 13, 12) end,
           10000 + s.status_roll % 90000, repeat('lorem ipsum ', 6 + s.status_roll % 12), substr(s.token, 17, 16), s.token), 'UTF8') as body
  from shaped s
),
inserted as (
insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, client_ip,
                    source, event_type, status, latency_ms, response_status, forwarded_at, completed_at, destination_url)
select (lpad(to_hex(b.ms), 12, '0') || '7' || substr(md5(b.g::text), 1, 3) || '8' || substr(md5(b.g::text), 4, 15))::uuid,
       ($1::uuid[])[b.endpoint_index], to_timestamp(b.ms / 1000.0), 'POST', '', '',
       json_build_array(json_build_array('content-type', 'application/json'),
                        json_build_array('user-agent', case b.source when 'github' then 'GitHub-Hookshot/5a1b2c3' when 'shopify' then 'Shopify-Captain-Hook' else 'Stripe/1.0 (+https://stripe.com/docs/webhooks)' end),
                        json_build_array('x-request-id', substr(b.token, 7, 16))),
       b.body, 'application/json', octet_length(b.body), '203.0.113.' || (1 + b.kind_roll % 250),
       b.source, b.event_type, b.status,
       case when b.forwarding then b.latency end,
       case b.status when 'delivered' then 200 when 'failed' then 500 end,
       case when b.forwarding then to_timestamp((b.ms + 1) / 1000.0) end,
       case when b.forwarding then to_timestamp((b.ms + 1 + b.latency) / 1000.0) end,
       case when b.forwarding then $2::text end
from bodied b
returning id, endpoint_id, status, completed_at
)
insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, completed_at)
select i.id, d.destination_id, i.endpoint_id, i.status, 1, i.completed_at
from inserted i join unnest($1::uuid[], $10::uuid[]) as d(endpoint_id, destination_id) on d.endpoint_id = i.endpoint_id
where d.destination_id is not null`;

/** [from, to) row ranges: one per day of the window, split so none exceeds ROWS_PER_INSERT. */
function seedChunks(n: number, days: number): Array<[number, number]> {
  const chunks: Array<[number, number]> = [];
  for (let day = 0; day < days; day += 1) {
    const [first, end] = [Math.floor((day * n) / days), Math.floor(((day + 1) * n) / days)];
    for (let from = first; from < end; from += ROWS_PER_INSERT) chunks.push([from, Math.min(end, from + ROWS_PER_INSERT)]);
  }
  return chunks;
}

/** Where the needle rows sit: spread over the last 23 hours (a margin, so they are still in "the last 24 h" when searched). */
function needleRows(n: number, spanMs: number): { from: number; step: number } {
  const from = Math.ceil(((spanMs - 23 * HOUR_MS) * n) / spanMs);
  const step = Math.floor((n - from) / NEEDLE_EVENTS);
  if (from < 0 || step < 1) throw new Error(`--events ${n} over --days ${spanMs / DAY_MS} puts fewer than ${NEEDLE_EVENTS} events in the last 23 hours`);
  return { from, step };
}

async function seedEvents(pool: pg.Pool, account: Account, n: number, days: number): Promise<void> {
  const nowMs = Date.now();
  const partitions = await ensureEventPartitions(pool, nowMs, { behind: days + 1, ahead: 14 });
  if (partitions.skipped.length > 0) throw new Error(`partitions not created: ${JSON.stringify(partitions.skipped)}`);
  const spanMs = days * DAY_MS;
  const startMs = nowMs - spanMs;
  const needle = needleRows(n, spanMs);
  const endpointIds = seedOrder(account).map((endpoint) => endpoint.id);
  const firstDestinations = await pool.query<{ endpoint_id: string; id: string }>("select endpoint_id, id from destinations where position = 0 and endpoint_id = any($1::uuid[])", [endpointIds]);
  const destinationIds = endpointIds.map((id) => firstDestinations.rows.find((row) => row.endpoint_id === id)?.id ?? null);
  const chunks = seedChunks(n, days);
  let seeded = 0;
  // Chunks are separate stretches of time (mostly separate day partitions): SEED_WORKERS of them run at once.
  const worker = async () => {
    for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
      const [from, to] = chunk;
      await pool.query(SEED_CHUNK, [endpointIds, DESTINATION, from, to, n, startMs, spanMs, needle.from, needle.step, destinationIds]);
      seeded += to - from;
      progress(`  seeded ${seeded.toLocaleString("en-US")} / ${n.toLocaleString("en-US")}`);
    }
  };
  await Promise.all(Array.from({ length: SEED_WORKERS }, worker));
}

/** event_counts and the health counters from the events themselves (the seed bypassed the statements that keep them). */
async function recount(pool: pg.Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("delete from event_counts");
    await client.query("insert into event_counts (endpoint_id, status, n) select endpoint_id, status, count(*) from events group by 1, 2");
    await client.query(`
      update endpoints p
      set delivered_count = coalesce(c.delivered, 0), failed_count = coalesce(c.failed, 0)
      from (select endpoint_id, sum(n) filter (where status = 'delivered') as delivered, sum(n) filter (where status = 'failed') as failed
            from event_counts group by endpoint_id) c
      where p.id = c.endpoint_id`);
    await client.query("commit");
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function countEvents(pool: pg.Pool, endpointId?: string): Promise<number> {
  const result = endpointId
    ? await pool.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1", [endpointId])
    : await pool.query<{ n: string }>("select count(*) as n from events");
  return Number(result.rows[0]!.n);
}

// ---------------------------------------------------------------- phase 4: reads

interface EventListAnswer {
  data: Array<{ id: string }>;
  meta: { total: number; total_capped: boolean; next_cursor: string | null };
}

/** GET on the public API; answers the status and the parsed body. */
async function apiGet<T>(server: string, apiKey: string, route: string): Promise<{ status: number; body: T }> {
  const response = await fetch(`${server}${route}`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { status: response.status, body: (await response.json()) as T };
}

async function apiOk<T>(server: string, apiKey: string, route: string): Promise<T> {
  const { status, body } = await apiGet<T>(server, apiKey, route);
  if (status !== 200) throw new Error(`GET ${route} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** WARMUP_REQUESTS untimed requests, then SAMPLES timed ones; answers their durations. */
async function sample(request: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < WARMUP_REQUESTS; i += 1) await request();
  const durations: number[] = [];
  for (let i = 0; i < SAMPLES; i += 1) durations.push((await timed(request)).ms);
  return durations;
}

/** A dashboard tRPC query over HTTP, as the browser sends it (superjson envelope). */
async function trpcQuery(server: string, cookie: string, procedure: string, input: unknown): Promise<unknown> {
  const response = await fetch(`${server}/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify({ json: input }))}`, {
    headers: { cookie },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const envelope = (await response.json()) as { result?: { data: { json: unknown } } };
  if (response.status !== 200 || !envelope.result) throw new Error(`${procedure} answered ${response.status}: ${JSON.stringify(envelope).slice(0, 300)}`);
  return envelope.result.data.json;
}

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

async function measureListings(server: string, account: Account, expectedTotal: number): Promise<void> {
  const forward = account.forwarding[0]!;
  const listings: Array<[string, string]> = [
    ["API first page (limit 20)", "/api/v1/events?limit=20"],
    ["API status=failed", "/api/v1/events?limit=20&status=failed"],
    ["API endpoint_id (a forwarding endpoint)", `/api/v1/events?limit=20&endpoint_id=${forward.id}`],
    ["API endpoint_id + status=failed", `/api/v1/events?limit=20&endpoint_id=${forward.id}&status=failed`],
    ["API source=github", "/api/v1/events?limit=20&source=github"],
    ["API event_type=push", "/api/v1/events?limit=20&event_type=push"],
    ["API time range (3 to 2 days ago)", `/api/v1/events?limit=20&received_after=${iso(3 * DAY_MS)}&received_before=${iso(2 * DAY_MS)}`],
  ];
  for (const [figure, route] of listings) {
    await attempt(figure, TARGETS.page, async () => addLatencyRow(figure, await sample(() => apiOk(server, account.apiKey, route)), TARGETS.page));
  }
  await attempt("API first page total", "exact", async () => {
    const first = await apiOk<EventListAnswer>(server, account.apiKey, "/api/v1/events?limit=20");
    check(first.meta.total === expectedTotal && !first.meta.total_capped, `first page total ${first.meta.total}, expected ${expectedTotal}`);
    out(`  first page total ${first.meta.total.toLocaleString("en-US")} (expected ${expectedTotal.toLocaleString("en-US")})`);
  });
  await attempt("API cursor walk", TARGETS.page, () => measureCursorWalk(server, account.apiKey, expectedTotal));
  const deepOffset = `API offset=${MAX_OFFSET}`;
  await attempt(deepOffset, TARGETS.offset, async () =>
    addLatencyRow(deepOffset, await sample(() => apiOk(server, account.apiKey, `/api/v1/events?limit=20&offset=${MAX_OFFSET}`)), TARGETS.offset),
  );
  await attempt(`API search q=${NEEDLE}`, TARGETS.search, () => measureSearch(server, account.apiKey));
  await attempt("dashboard Activity: events.list", TARGETS.page, () => measureActivity(server));
  await attempt("API endpoint health", TARGETS.page, () => measureEndpointHealth(server, account.apiKey, forward));
}

/** The dashboard's Activity loader, signed in as the seeded account's user: all events, then the failed ones. */
async function measureActivity(server: string): Promise<void> {
  const cookie = await signIn(server, { email: EMAIL, password: PASSWORD }, REQUEST_TIMEOUT_MS);
  addLatencyRow("dashboard Activity: events.list (limit 50)", await sample(() => trpcQuery(server, cookie, "events.list", { limit: 50 })), TARGETS.page);
  addLatencyRow(
    "dashboard Activity: events.list status=failed",
    await sample(() => trpcQuery(server, cookie, "events.list", { status: "failed", limit: 50 })),
    TARGETS.page,
  );
}

interface EndpointAnswer {
  id: string;
  health: { state: string; success_rate: number | null };
}

/**
 * An endpoint's health: GET /api/v1/endpoints/{id} where the server has it; the listing of
 * endpoints (which carries every endpoint's health) otherwise, and always. Its success rate
 * should be the seeded ~90%.
 */
async function measureEndpointHealth(server: string, apiKey: string, forward: BenchEndpoint): Promise<void> {
  const one = `/api/v1/endpoints/${forward.id}`;
  const probe = await apiGet<EndpointAnswer>(server, apiKey, one);
  const figure = "API endpoint health (GET /endpoints/{id})";
  if (probe.status === 200) addLatencyRow(figure, await sample(() => apiOk(server, apiKey, one)), TARGETS.page);
  else if (probe.status === 404 || probe.status === 405) addValueRow(figure, `not implemented (${probe.status})`, TARGETS.page);
  else throw new Error(`GET ${one} answered ${probe.status}`);

  const listing = "/api/v1/endpoints?limit=20";
  addLatencyRow("API endpoints listing with health (GET /endpoints)", await sample(() => apiOk(server, apiKey, listing)), TARGETS.page);
  const listed = (await apiOk<{ data: EndpointAnswer[] }>(server, apiKey, listing)).data.find((endpoint) => endpoint.id === forward.id);
  const rate = listed?.health.success_rate ?? null;
  check(rate !== null && rate > 0.85 && rate < 0.95, `forwarding endpoint's success rate ${rate}, expected about 0.9`);
  out(`  forwarding endpoint health: ${listed?.health.state}, success rate ${rate}`);
}

/** CURSOR_PAGES pages of 20 following next_cursor: every fetch timed, ids never seen twice and always older. */
async function measureCursorWalk(server: string, apiKey: string, expectedTotal: number): Promise<void> {
  const seen = new Set<string>();
  const durations: number[] = [];
  let cursor: string | null = null;
  let previous = "g"; // above every hex id
  for (let page = 0; page < CURSOR_PAGES; page += 1) {
    const route: string = `/api/v1/events?limit=20${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
    const fetched: { result: EventListAnswer; ms: number } = await timed(() => apiOk<EventListAnswer>(server, apiKey, route));
    durations.push(fetched.ms);
    const { data, meta } = fetched.result;
    for (const { id } of data) {
      check(!seen.has(id), `cursor walk: id ${id} came twice`);
      check(id < previous, `cursor walk: id ${id} is not older than ${previous}`);
      seen.add(id);
      previous = id;
    }
    cursor = meta.next_cursor;
    if (!cursor) break;
  }
  // A walk that ends early has seen every event.
  check(durations.length === CURSOR_PAGES || seen.size === expectedTotal, `cursor walk ended after ${durations.length} pages with ${seen.size} of ${expectedTotal} events`);
  addLatencyRow(`API cursor walk, ${durations.length} pages of 20 (every page)`, durations, TARGETS.page);
  addValueRow(`API cursor page ${durations.length} (${seen.size.toLocaleString("en-US")} events deep)`, ms(durations.at(-1)!), TARGETS.deepPage);
  check(seen.size === durations.length * 20 || cursor === null, `cursor walk: ${seen.size} distinct ids over ${durations.length} full pages`);
}

/**
 * The body search over the last 24 h: a text in NEEDLE_EVENTS bodies (the page fills from the
 * newest slices of the day), then one in none (the whole day is read). Every needle is found
 * once, walking the pages by cursor.
 */
async function measureSearch(server: string, apiKey: string): Promise<void> {
  const route = (text: string, cursor?: string) =>
    `/api/v1/events?limit=20&q=${encodeURIComponent(text)}&received_after=${iso(24 * HOUR_MS)}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
  /** Every page of a search's matches: each found once. */
  const walk = async (text: string, expected: number) => {
    const found = new Set<string>();
    let cursor: string | undefined;
    do {
      const page: EventListAnswer = await apiOk<EventListAnswer>(server, apiKey, route(text, cursor));
      for (const { id } of page.data) found.add(id);
      cursor = page.meta.next_cursor ?? undefined;
    } while (cursor && found.size <= expected);
    check(found.size === expected, `search for ${text} found ${found.size} events over its pages, expected ${expected}`);
  };
  await walk(NEEDLE, NEEDLE_EVENTS);
  await walk(RARE, RARE_EVENTS);
  addLatencyRow(`API search q=${NEEDLE} (last 24 h, ${NEEDLE_EVENTS} match, first page)`, await sample(() => apiOk(server, apiKey, route(NEEDLE))), TARGETS.search);
  addLatencyRow(`API search q=${RARE} (last 24 h, ${RARE_EVENTS} match)`, await sample(() => apiOk(server, apiKey, route(RARE))), TARGETS.search);
  addLatencyRow(`API search q=${COMMON} (in most bodies, first page)`, await sample(() => apiOk(server, apiKey, route(COMMON))), TARGETS.search);
  addLatencyRow("API search, no match (last 24 h)", await sample(() => apiOk(server, apiKey, route("nothing-matches-this"))), TARGETS.search);
}

/** The index job's next run, pushed a day away (or brought back to now); held until no run of it is under way. */
async function holdSearchIndex(pool: pg.Pool, held: boolean): Promise<void> {
  const runAt = held ? "now() + interval '1 day'" : "now()";
  for (let tries = 0; tries < 50; tries += 1) {
    await pool.query(`update jobs set run_at = ${runAt} where kind = $1`, [SEARCH_INDEX_JOB]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    // A run under way when the update landed settles with its own next run: look again.
    const rows = await pool.query<{ ok: boolean }>(`select lease_until is null and (run_at > now() + interval '1 hour') = $2 as ok from jobs where kind = $1`, [SEARCH_INDEX_JOB, held]);
    if (rows.rows[0]?.ok) return;
  }
  throw new Error("the search index job could not be held");
}

/** Indexes everything up to the index's lag, batch after batch with no pause; answers the rows indexed. */
async function fillSearchIndex(pool: pg.Pool): Promise<number> {
  const upTo = uuidv7Floor(Date.now() - SEARCH_INDEX_LAG_MS);
  let rows = 0;
  for (let more = true; more; ) {
    const batch = await indexNextEvents(pool, upTo, SEARCH_FILL_BATCH_ROWS);
    rows += batch.rows;
    more = batch.more;
  }
  return rows;
}

/**
 * Waits until the search index's range holds everything captured before `sinceMs` (which
 * takes at least its lag), polling every 2 s; answers the time it took and the rows indexed.
 */
async function waitForSearchIndex(pool: pg.Pool, sinceMs: number): Promise<{ ms: number; rows: number }> {
  const target = uuidv7Floor(sinceMs);
  const started = performance.now();
  while (performance.now() - started < INDEX_CATCH_UP_LIMIT_MS) {
    const state = await pool.query<{ through: string }>("select indexed_through::text as through from event_search_state");
    if ((state.rows[0]?.through ?? "") >= target) {
      const rows = await pool.query<{ n: string }>("select count(*) as n from event_search");
      return { ms: performance.now() - started, rows: Number(rows.rows[0]!.n) };
    }
    await new Promise((resolve) => setTimeout(resolve, PURGE_POLL_MS));
  }
  throw new Error(`the search index did not catch up within ${INDEX_CATCH_UP_LIMIT_MS / 60_000} min`);
}

// ---------------------------------------------------------------- phase 6: endpoint delete

/** Polls until the endpoint has no events left (at most PURGE_LIMIT_MS); answers the rows left. */
async function waitUntilPurged(pool: pg.Pool, endpointId: string): Promise<number> {
  const deadline = performance.now() + PURGE_LIMIT_MS;
  while (true) {
    const left = await countEvents(pool, endpointId);
    if (left === 0 || performance.now() > deadline) return left;
    await new Promise((resolve) => setTimeout(resolve, PURGE_POLL_MS));
  }
}

async function measureEndpointDelete(server: string, pool: pg.Pool, account: Account): Promise<void> {
  const rows = await countEvents(pool, account.big.id);
  const started = performance.now();
  const answer = await timed(() =>
    fetch(`${server}/api/v1/endpoints/${account.big.id}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${account.apiKey}` },
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    }),
  );
  if (answer.result.status !== 204) throw new Error(`DELETE of the big endpoint answered ${answer.result.status}`);
  addValueRow(`DELETE /api/v1/endpoints/{id} (${rows.toLocaleString("en-US")} events)`, `204 in ${ms(answer.ms)}`, TARGETS.deleteAnswer);

  // Captures to another endpoint while the purge runs: they must keep working.
  const [left, during] = await Promise.all([
    waitUntilPurged(pool, account.big.id).then((remaining) => ({ remaining, seconds: (performance.now() - started) / 1000 })),
    runLoad({ url: `${server}/api/webhook/${account.captureB.slug}`, connections: CONNECTIONS, durationSeconds: LOAD_SECONDS, body }),
  ]);
  check(during.ok > 0 && during.notOk === 0 && during.errors === 0, `captures during the purge: ${during.ok} ok, ${during.notOk} non-2xx, ${during.errors} errors`);
  const purged = left.remaining === 0 ? `gone in ${left.seconds.toFixed(1)} s (${rowsPerSecond(rows, left.seconds * 1000)})` : `${left.remaining} rows left after 15 min`;
  addValueRow("background purge of its events (polled every 2 s)", purged, TARGETS.purge);
  addValueRow("capture to another endpoint during the purge", describeLoad(during), "keeps working");
}

// ---------------------------------------------------------------- phase 7: retention

/** The oldest day partition that holds events (the ones before the window are empty). */
async function oldestFilledDay(pool: pg.Pool): Promise<{ partition: EventPartition; rows: number }> {
  for (const partition of await eventPartitions(pool)) {
    const result = await pool.query<{ n: string }>(`select count(*) as n from "${partition.name}"`);
    const rows = Number(result.rows[0]!.n);
    if (rows > 0) return { partition, rows };
  }
  throw new Error("no day partition holds events");
}

async function measureRetentionDrop(pool: pg.Pool): Promise<void> {
  const { partition, rows } = await oldestFilledDay(pool);
  const dropped = await timed(() => dropEventPartition(pool, partition));
  const stillThere = (await eventPartitions(pool)).some((p) => p.name === partition.name);
  check(!stillThere, `${partition.name} is still attached after the drop`);
  addValueRow(`retention: drop ${partition.name} (${rows.toLocaleString("en-US")} events)`, ms(dropped.ms), TARGETS.dropDay);
}

// ---------------------------------------------------------------- the run

function printTable(): void {
  out("\n| figure | p50 / value | p95 | target |");
  out("|---|---|---|---|");
  for (const row of table) out(`| ${row.figure} | ${row.p50} | ${row.p95} | ${row.target} |`);
}

function printProblems(): void {
  if (problems.length === 0) return;
  out(`\nbroken run: ${problems.length} correctness problem(s)`);
  for (const problem of problems.slice(0, 20)) out(`  - ${problem}`);
  process.exitCode = 1;
}

/** The Rehook server of the phase under way (stopped between phases, and by the cleanup). */
interface Running {
  rehook?: Started;
}

async function stopRehook(running: Running): Promise<void> {
  if (running.rehook) await stop(running.rehook.child);
  running.rehook = undefined;
}

async function runPhases(env: Record<string, string> & { DATABASE_URL: string }, pool: pg.Pool, running: Running): Promise<void> {
  out("phase 1: migrate, a user, an API key and 6 endpoints");
  await runRehook(["migrate"], env);
  const account = await createAccount(env);

  out("\nphase 2: capture on the empty database");
  const bare = await bareLoad();
  addValueRow("bare node:http baseline", describeLoad(bare));
  running.rehook = await startRehook(env);
  const empty = await captureLoad(running.rehook.url, account.captureA);
  addValueRow("capture, empty database", `${describeLoad(empty)}, ${((100 * empty.requestsPerSecond) / bare.requestsPerSecond).toFixed(1)}% of bare`, TARGETS.captureEmpty);
  await stopRehook(running);
  await rawInsertRows(env.DATABASE_URL, account.raw, "empty database");
  await pool.query("delete from events where endpoint_id = $1", [account.raw.id]);
  const captured = await countEvents(pool);

  out(`\nphase 3: seeding ${EVENTS.toLocaleString("en-US")} events`);
  const seed = await timed(() => seedEvents(pool, account, EVENTS, DAYS));
  const counts = await timed(() => recount(pool));
  const vacuum = await timed(() => pool.query("vacuum analyze events, deliveries"));
  addValueRow("seed: insert", `${(seed.ms / 1000).toFixed(1)} s, ${rowsPerSecond(EVENTS, seed.ms)}`);
  addValueRow("seed: event_counts and health counters", `${(counts.ms / 1000).toFixed(1)} s`);
  addValueRow("seed: vacuum analyze", `${(vacuum.ms / 1000).toFixed(1)} s`);
  // The seed wrote below the index's range: it starts again SEARCH_INDEX_HOURS back, as after an
  // upgrade, and is filled here at full speed (the server's job would take a quarter of one connection).
  await restartSearchIndex(pool, uuidv7Floor(Date.now() - SEARCH_INDEX_HOURS * HOUR_MS));
  const filled = await timed(() => fillSearchIndex(pool));
  addValueRow(`search index: the seed's last ${SEARCH_INDEX_HOURS} h indexed at full speed`, `${(filled.ms / 1000).toFixed(1)} s, ${rowsPerSecond(filled.result, filled.ms)}`);
  const indexVacuum = await timed(() => pool.query("vacuum analyze event_search"));
  addValueRow("search index: vacuum analyze", `${(indexVacuum.ms / 1000).toFixed(1)} s`);

  out("\nphase 4: reads with the events present");
  running.rehook = await startRehook(env);
  await measureListings(running.rehook.url, account, EVENTS + captured);

  out("\nphase 5: capture with the events present, with the search index job held and running");
  await holdSearchIndex(pool, true);
  const held = await captureLoad(running.rehook.url, account.captureA);
  addValueRow(`capture, ${EVENTS.toLocaleString("en-US")} events stored, search index job held`, `${describeLoad(held)}, ${((100 * held.requestsPerSecond) / empty.requestsPerSecond).toFixed(1)}% of empty`);
  await holdSearchIndex(pool, false);
  const full = await captureLoad(running.rehook.url, account.captureA);
  const loadEnded = Date.now();
  addValueRow(
    `capture, ${EVENTS.toLocaleString("en-US")} events stored, search index job running`,
    `${describeLoad(full)}, ${((100 * full.requestsPerSecond) / empty.requestsPerSecond).toFixed(1)}% of empty, ${((100 * full.requestsPerSecond) / held.requestsPerSecond).toFixed(1)}% of held`,
    TARGETS.captureFull,
  );
  const behind = await timed(() => waitForSearchIndex(pool, loadEnded));
  addValueRow("search index: holds every event of that load", `${(behind.ms / 1000).toFixed(1)} s after it ended (${SEARCH_INDEX_LAG_MS / 1000} s of it the index's lag)`);

  await stopRehook(running);
  await rawInsertRows(env.DATABASE_URL, account.raw, `${EVENTS.toLocaleString("en-US")} events stored`);
  running.rehook = await startRehook(env);

  out("\nphase 6: deleting the big endpoint");
  await measureEndpointDelete(running.rehook.url, pool, account);
  const rss = peakRssMiB(running.rehook.child.pid!);
  if (rss !== undefined) addValueRow("rehook peak RSS", `${rss} MiB`);
  await stopRehook(running);

  out("\nphase 7: retention drops a day");
  await measureRetentionDrop(pool);
}

/** A database of the bench's own on an existing server. */
interface ExternalDatabase {
  url: string;
  stop(): Promise<void>;
  drop(): Promise<void>;
}

async function createExternalDatabase(adminUrl: string): Promise<ExternalDatabase> {
  const name = `rehook_scale_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    async stop() {},
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** The server's version and the settings that change the figures (JIT, autovacuum). */
async function describeServer(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const row = (
    await client.query<{ version: string; jit: string; jit_available: boolean; autovacuum: string }>(
      "select version(), current_setting('jit') as jit, pg_jit_available() as jit_available, current_setting('autovacuum') as autovacuum",
    )
  ).rows[0]!;
  await client.end();
  out(`server: ${row.version.split(",")[0]}; jit ${row.jit} (${row.jit_available ? "available" : "not built in"}), autovacuum ${row.autovacuum}\n`);
}

async function main() {
  if (!Number.isInteger(EVENTS) || EVENTS < 1 || !Number.isInteger(DAYS) || DAYS < 1) throw new Error("--events and --days take whole numbers above 0");
  out(`bench:scale  ${EVENTS.toLocaleString("en-US")} events over ${DAYS} days; captures: ${CONNECTIONS} connections for ${LOAD_SECONDS} s, body ${body.length} bytes; node ${process.version}\n`);
  const external = values["database-url"];
  const dataDir = external ? undefined : await mkdtemp(path.join(tmpdir(), "rehook-bench-scale-"));
  const running: Running = {};
  let database: EmbeddedDatabase | ExternalDatabase | undefined;
  let pool: pg.Pool | undefined;
  try {
    database = external ? await createExternalDatabase(external) : await startEmbeddedPostgres({ dataDir: dataDir! });
    await describeServer(database.url);
    // Retention off (RETENTION_DAYS=0): phase 7 drops a day itself, nothing else may.
    const env = {
      DATABASE_URL: database.url,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      ALLOW_PRIVATE_DESTINATIONS: "true",
      RETENTION_DAYS: "0",
      API_RATE_LIMIT_PER_MINUTE: "1000000",
    };
    // A seed chunk of 500,000 rows, or the vacuum of all of them, takes a while.
    pool = new pg.Pool({ connectionString: database.url, max: 4, options: `-c statement_timeout=${STATEMENT_TIMEOUT_MS}` });
    await runPhases(env, pool, running);
  } finally {
    // What was measured is printed even when a phase failed.
    printTable();
    printProblems();
    await stopRehook(running).catch(() => undefined);
    await pool?.end().catch(() => undefined);
    if (values.keep) out(`\ndatabase kept: ${dataDir ?? database?.url}`);
    if (database && "drop" in database) await (values.keep ? database.stop() : database.drop()).catch(() => undefined);
    else await database?.stop().catch(() => undefined);
    if (dataDir && !values.keep) await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:scale failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  // Cleanup has run (main's finally); a server that never said it listens must not keep the bench alive.
  process.exit(1);
});
