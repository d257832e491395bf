import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { eventCountMismatches } from "../../../tooling/vitest/src/event-counts.js";
import { insertPersonalTeam } from "../../../tooling/vitest/src/postgres.js";
import { claimDueDeliveries, findOwnedEndpoint, retryFailedOfEndpoint, retryOwnedEvent } from "../src/index.js";
import { unmigratedDatabase } from "./unmigrated-database.js";

// A database of before routing (one destination_url per endpoint, forwarding's queue on the
// events) upgraded to destinations and deliveries: each endpoint's destination, retry policy
// and breaker become its first destination, every pending event a pending delivery to it with
// its attempts, lease and next attempt kept, and a pending event with nowhere to go fails
// saying why, with the counts moved to match. The migration goes back down as it came.

const BEFORE_ROUTING = "Migration20261202000000_dedup";
const ROUTING = "Migration20261203000000_destinations";
const STRANDED_ERROR = "the endpoint had no destination when routing was introduced; add one and retry";
const ENDPOINT_COLUMNS = [
  "destination_url",
  "retry_max_attempts",
  "retry_initial_delay_ms",
  "retry_max_delay_ms",
  "pause_after_failures",
  "consecutive_failures",
  "forwarding_paused_at",
  "paused_reason",
];

let teamId: string;
const makeId = createUuidV7Generator();

const t = unmigratedDatabase({ ormPoolSize: 2, poolMax: 1 });

/** Whole milliseconds (the columns keep three digits). */
const at = (offsetMs: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + offsetMs);

async function columnsOf(table: string): Promise<string[]> {
  const rows = await t.db.query<{ column_name: string }>("select column_name from information_schema.columns where table_name = $1 order by column_name", [table]);
  return rows.map((row) => row.column_name);
}

const indexExists = async (name: string) => (await t.db.query<{ found: string | null }>("select to_regclass($1)::text as found", [name]))[0]!.found !== null;

/** What the main of before routing holds: endpoints forwarding or not, and events in each state. */
async function seedBeforeRouting() {
  const userId = uuidv7();
  await t.db.query("insert into users (id, email, password_hash) values ($1, 'routing@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(t.db, userId);
  const pausedAt = at(-3_600_000);
  const endpoints = {
    /** Forwards with a retry policy, and its breaker has tripped. */
    paused: { id: uuidv7(), url: "https://user:pw@hooks.example.com:8443/in?x=1", host: "hooks.example.com" },
    /** Forwards with no policy (one attempt), running. */
    plain: { id: uuidv7(), url: "https://plain.example.net/x", host: "plain.example.net" },
    /** Captures only: its URL was removed while an event still waited. */
    captureOnly: { id: uuidv7(), url: null, host: null },
  };
  const insertEndpoint = (id: string, url: string | null, settings: string, values: unknown[] = []) =>
    t.db.query(
      `insert into endpoints (id, team_id, name, slug, secret, destination_url, created_at ${settings ? `, ${settings}` : ""})
       values ($1, $2, 'old', $3, 'whsec_x', $4, now() - interval '2 days' ${values.map((_, i) => `, $${i + 5}`).join("")})`,
      [id, teamId, `old-${randomBytes(4).toString("hex")}`, url, ...values],
    );
  await insertEndpoint(
    endpoints.paused.id,
    endpoints.paused.url,
    "retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, pause_after_failures, consecutive_failures, forwarding_paused_at, paused_reason",
    [5, 1_000, 60_000, 3, 3, pausedAt, "3 consecutive failed attempts (last: destination answered 500)"],
  );
  await insertEndpoint(endpoints.plain.id, endpoints.plain.url, "");
  await insertEndpoint(endpoints.captureOnly.id, null, "");

  const leaseExpiresAt = at(60_000);
  const nextAttemptAt = at(300_000);
  const events = {
    /** Failed twice, its retry kept in memory by an instance: leased past its next attempt. */
    leasedRetry: { id: makeId(), endpoint: endpoints.paused, status: "pending", attempts: 2, lease: leaseExpiresAt, next: nextAttemptAt, tried: ["failed", "failed"] },
    /** Waiting for the breaker to close. */
    waiting: { id: makeId(), endpoint: endpoints.paused, status: "pending", attempts: 0, lease: null, next: null, tried: [] },
    delivered: { id: makeId(), endpoint: endpoints.paused, status: "delivered", attempts: 1, lease: null, next: null, tried: ["delivered"] },
    failed: { id: makeId(), endpoint: endpoints.paused, status: "failed", attempts: 2, lease: null, next: null, tried: ["failed", "failed"] },
    failedToo: { id: makeId(), endpoint: endpoints.paused, status: "failed", attempts: 1, lease: null, next: null, tried: ["failed"] },
    /** Never claimed yet. */
    fresh: { id: makeId(), endpoint: endpoints.plain, status: "pending", attempts: 0, lease: null, next: null, tried: [] },
    /** Its claimer crashed: the lease has expired, the attempt it took counted. */
    expired: { id: makeId(), endpoint: endpoints.plain, status: "pending", attempts: 1, lease: at(-60_000), next: null, tried: [] },
    /** Tried once, then the endpoint's URL was removed: it would wait for ever. */
    stranded: { id: makeId(), endpoint: endpoints.captureOnly, status: "pending", attempts: 1, lease: null, next: at(-1_000), tried: ["failed"] },
    captured: { id: makeId(), endpoint: endpoints.captureOnly, status: "captured", attempts: 0, lease: null, next: null, tried: [] },
  };
  for (const event of Object.values(events)) {
    const finished = event.status === "delivered" || event.status === "failed";
    await t.db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url,
                           attempts, lease_expires_at, next_attempt_at, completed_at, error)
       values ($1, $2, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', $3, $4, $5, $6, $7, $8, $9)`,
      [
        event.id,
        event.endpoint.id,
        event.status,
        event.status === "captured" ? null : (event.endpoint.url ?? endpoints.paused.url),
        event.attempts,
        event.lease,
        event.next,
        finished ? at(-1_000) : null,
        event.status === "failed" ? "destination answered 500" : null,
      ],
    );
    for (const [n, outcome] of event.tried.entries()) {
      await t.db.query(
        "insert into delivery_attempts (event_id, attempt, started_at, latency_ms, response_status, outcome) values ($1, $2, now(), 5, $3, $4)",
        [event.id, n + 1, outcome === "delivered" ? 200 : 500, outcome],
      );
    }
  }
  // The counts as the main of before routing kept them.
  await t.db.query("insert into event_counts (endpoint_id, status, n) select endpoint_id, status, count(*) from events group by 1, 2");
  return { endpoints, events, pausedAt, leaseExpiresAt, nextAttemptAt };
}

type Seeded = Awaited<ReturnType<typeof seedBeforeRouting>>;

/** A seeded event's forwarding state of before routing, which its pending delivery keeps. */
interface SeedEvent {
  id: string;
  endpoint: { id: string };
  attempts: number;
  lease: Date | null;
  next: Date | null;
}

interface DestinationRow {
  id: string;
  endpoint_id: string;
  position: number;
  name: string;
  url: string;
  enabled: boolean;
  filter: unknown;
  rate_limit_per_second: number | null;
  ordered: boolean;
  retry_max_attempts: number | null;
  retry_initial_delay_ms: number | null;
  retry_max_delay_ms: number | null;
  pause_after_failures: number | null;
  consecutive_failures: number;
  forwarding_paused_at: Date | null;
  paused_reason: string | null;
}

const destinationsOf = (endpointId: string) => t.db.query<DestinationRow>("select * from destinations where endpoint_id = $1 order by position", [endpointId]);

/** The endpoints' forwarding columns of before routing, by endpoint. */
async function endpointSettings(seeded: Seeded) {
  const rows = await t.db.query<{ id: string }>(`select id, ${ENDPOINT_COLUMNS.join(", ")} from endpoints where id = any($1::uuid[]) order by id`, [
    Object.values(seeded.endpoints).map((endpoint) => endpoint.id),
  ]);
  return Object.fromEntries(rows.map(({ id, ...settings }) => [id, settings]));
}

describe("upgrading to destinations and deliveries", () => {
  let seeded: Seeded;
  let settingsBefore: Record<string, Record<string, unknown>>;
  let attemptsBefore: unknown[];

  it("makes each endpoint's destination its first destination, with its retry policy and breaker state", async () => {
    await t.orm.getMigrator().up({ to: BEFORE_ROUTING });
    seeded = await seedBeforeRouting();
    settingsBefore = await endpointSettings(seeded);
    attemptsBefore = await t.db.query("select id::text, event_id, attempt, outcome, response_status from delivery_attempts order by id");
    expect(attemptsBefore).toHaveLength(7);
    expect(await eventCountMismatches(t.db)).toEqual([]);

    await t.orm.getMigrator().up();

    const { paused, plain, captureOnly } = seeded.endpoints;
    // Later migrations' columns (the breaker's probe slot) start empty.
    const common = { position: 0, enabled: true, filter: null, rate_limit_per_second: null, ordered: false, probe_event_id: null, probe_lease_expires_at: null };
    expect(await destinationsOf(paused.id)).toEqual([
      {
        ...common,
        id: expect.any(String),
        endpoint_id: paused.id,
        name: paused.host,
        url: paused.url,
        retry_max_attempts: 5,
        retry_initial_delay_ms: 1_000,
        retry_max_delay_ms: 60_000,
        pause_after_failures: 3,
        consecutive_failures: 3,
        forwarding_paused_at: seeded.pausedAt,
        paused_reason: "3 consecutive failed attempts (last: destination answered 500)",
        rate_next_start_at: null,
        created_at: expect.any(Date),
        updated_at: expect.any(Date),
      },
    ]);
    expect(await destinationsOf(plain.id)).toEqual([
      {
        ...common,
        id: expect.any(String),
        endpoint_id: plain.id,
        name: plain.host,
        url: plain.url,
        retry_max_attempts: null,
        retry_initial_delay_ms: null,
        retry_max_delay_ms: null,
        pause_after_failures: null,
        consecutive_failures: 0,
        forwarding_paused_at: null,
        paused_reason: null,
        rate_next_start_at: null,
        created_at: expect.any(Date),
        updated_at: expect.any(Date),
      },
    ]);
    // Created when its endpoint was: it existed for every event stored before (none counts as filtered away).
    const [created] = await t.db.query<{ same: boolean }>(
      "select d.created_at = p.created_at as same from destinations d join endpoints p on p.id = d.endpoint_id where p.id = $1",
      [paused.id],
    );
    expect(created!.same).toBe(true);
    expect(await destinationsOf(captureOnly.id)).toEqual([]);

    // The endpoint as the app reads it: its destination URL is the first destination's.
    const em = t.orm.em.fork();
    expect((await findOwnedEndpoint(em, teamId, { id: paused.id }))?.destinationUrl).toBe(paused.url);
    expect((await findOwnedEndpoint(em, teamId, { id: captureOnly.id }))?.destinationUrl).toBeNull();
  });

  it("makes every pending event a pending delivery to that destination, with its attempts, lease and next attempt as they were", async () => {
    const { events, endpoints } = seeded;
    const [pausedDestination] = await destinationsOf(endpoints.paused.id);
    const [plainDestination] = await destinationsOf(endpoints.plain.id);
    const deliveries = await t.db.query<{
      event_id: string;
      destination_id: string;
      endpoint_id: string;
      status: string;
      attempts: number;
      lease_expires_at: Date | null;
      next_attempt_at: Date | null;
      completed_at: Date | null;
    }>("select event_id, destination_id, endpoint_id, status, attempts, lease_expires_at, next_attempt_at, completed_at from deliveries order by event_id");
    const pending = (event: SeedEvent, destinationId: string) => ({
      event_id: event.id,
      destination_id: destinationId,
      endpoint_id: event.endpoint.id,
      status: "pending",
      attempts: event.attempts,
      lease_expires_at: event.lease,
      next_attempt_at: event.next,
      completed_at: null,
    });
    // Delivered and captured events have none (their attempts went to the first destination); the stranded one has nowhere to go.
    // Failed ones get their failed delivery to the first destination later on (legacy_delivery_resolution), as a retry adopts them.
    const [failedAt] = await t.db.query<{ completed_at: Date }>("select completed_at from events where id = $1", [events.failed.id]);
    const adopted = (event: SeedEvent & { tried: string[] }) => ({
      ...pending(event, pausedDestination!.id),
      status: "failed",
      attempts: event.tried.length,
      lease_expires_at: null,
      next_attempt_at: null,
      completed_at: failedAt!.completed_at,
    });
    expect(deliveries).toEqual([
      pending(events.leasedRetry, pausedDestination!.id),
      pending(events.waiting, pausedDestination!.id),
      adopted(events.failed),
      adopted(events.failedToo),
      pending(events.fresh, plainDestination!.id),
      pending(events.expired, plainDestination!.id),
    ]);
    // The events keep their status, first destination's URL and earliest next attempt.
    const rows = await t.db.query<{ id: string; status: string; destination_url: string | null; next_attempt_at: Date | null }>(
      "select id, status, destination_url, next_attempt_at from events where id = any($1::uuid[]) order by id",
      [[events.leasedRetry.id, events.fresh.id, events.delivered.id, events.failed.id]],
    );
    expect(rows).toEqual([
      { id: events.leasedRetry.id, status: "pending", destination_url: endpoints.paused.url, next_attempt_at: seeded.nextAttemptAt },
      { id: events.delivered.id, status: "delivered", destination_url: endpoints.paused.url, next_attempt_at: null },
      { id: events.failed.id, status: "failed", destination_url: endpoints.paused.url, next_attempt_at: null },
      { id: events.fresh.id, status: "pending", destination_url: endpoints.plain.url, next_attempt_at: null },
    ]);
    // Attempts made before routing are kept, to no destination in particular (the first one).
    expect(await t.db.query("select id::text, event_id, attempt, outcome, response_status from delivery_attempts order by id")).toEqual(attemptsBefore);
    expect(await t.db.query("select count(*)::int as n from delivery_attempts where destination_id is not null")).toEqual([{ n: 0 }]);

    // The queue works from where it was: the running destination's due deliveries are claimed as their next attempts;
    // the held retry keeps its lease, and the paused destination gives nothing.
    const claimed = await claimDueDeliveries(t.pool, 100, 60_000);
    expect(claimed.map((delivery) => [delivery.id, delivery.destinationId, delivery.destinationUrl, delivery.attempt])).toEqual([
      [events.fresh.id, plainDestination!.id, endpoints.plain.url, 1],
      [events.expired.id, plainDestination!.id, endpoints.plain.url, 2],
    ]);
  });

  it("fails a pending event whose endpoint has no destination, saying why, and moves the counts with it", async () => {
    const { events, endpoints } = seeded;
    const [stranded] = await t.db.query("select status, error, next_attempt_at, completed_at is not null as completed from events where id = $1", [events.stranded.id]);
    expect(stranded).toEqual({ status: "failed", error: STRANDED_ERROR, next_attempt_at: null, completed: true });
    expect(await t.db.query("select status from events where id = $1", [events.captured.id])).toEqual([{ status: "captured" }]);
    expect(await eventCountMismatches(t.db)).toEqual([]);
    const counts = await t.db.query<{ status: string; n: number }>(
      "select status, sum(n)::int as n from event_counts where endpoint_id = $1 group by status having sum(n) <> 0 order by status",
      [endpoints.captureOnly.id],
    );
    expect(counts).toEqual([
      { status: "captured", n: 1 },
      { status: "failed", n: 1 },
    ]);
  });

  it("drops the columns and index routing replaced", async () => {
    const endpointColumns = await columnsOf("endpoints");
    for (const column of ENDPOINT_COLUMNS) expect(endpointColumns, column).not.toContain(column);
    const eventColumns = await columnsOf("events");
    expect(eventColumns).not.toContain("lease_expires_at");
    expect(eventColumns).not.toContain("attempts");
    // Kept: the first matched destination's URL at capture, and the earliest pending retry.
    expect(eventColumns).toContain("destination_url");
    expect(eventColumns).toContain("next_attempt_at");
    expect(await indexExists("events_pending_endpoint_index")).toBe(false);
    expect(await columnsOf("delivery_attempts")).toContain("destination_id");
  });

  it("goes back down: destination_url, retry policy and breaker state on the endpoints again, attempts on the events; and up once more", async () => {
    const { events, endpoints } = seeded;
    await t.orm.getMigrator().down({ to: ROUTING });

    expect(await endpointSettings(seeded)).toEqual(settingsBefore);
    expect(await t.db.query("select to_regclass('destinations')::text as destinations, to_regclass('deliveries')::text as deliveries")).toEqual([
      { destinations: null, deliveries: null },
    ]);
    expect(await columnsOf("delivery_attempts")).not.toContain("destination_id");
    expect(await indexExists("events_pending_endpoint_index")).toBe(true);
    // Attempt counts come back from the attempts stored (a claim that made no attempt yet is not counted).
    const attempts = await t.db.query<{ id: string; status: string; attempts: number }>("select id, status, attempts from events order by id");
    expect(attempts).toEqual([
      { id: events.leasedRetry.id, status: "pending", attempts: 2 },
      { id: events.waiting.id, status: "pending", attempts: 0 },
      { id: events.delivered.id, status: "delivered", attempts: 1 },
      { id: events.failed.id, status: "failed", attempts: 2 },
      { id: events.failedToo.id, status: "failed", attempts: 1 },
      { id: events.fresh.id, status: "pending", attempts: 0 },
      { id: events.expired.id, status: "pending", attempts: 0 },
      { id: events.stranded.id, status: "failed", attempts: 1 },
      { id: events.captured.id, status: "captured", attempts: 0 },
    ]);
    expect(await t.db.query("select id::text, event_id, attempt, outcome, response_status from delivery_attempts order by id")).toEqual(attemptsBefore);
    expect(await eventCountMismatches(t.db)).toEqual([]);

    await t.orm.getMigrator().up();
    expect((await destinationsOf(endpoints.paused.id)).map((row) => [row.url, row.retry_max_attempts, row.forwarding_paused_at])).toEqual([
      [endpoints.paused.url, 5, seeded.pausedAt],
    ]);
    expect((await t.db.query<{ event_id: string }>("select event_id from deliveries order by event_id")).map((row) => row.event_id)).toEqual([
      events.leasedRetry.id,
      events.waiting.id,
      events.failed.id,
      events.failedToo.id,
      events.fresh.id,
      events.expired.id,
    ]);
    expect(await eventCountMismatches(t.db)).toEqual([]);
  });

  it("a failed event from before routing can still be retried, to the endpoint's first destination", async () => {
    const { events, endpoints } = seeded;
    const em = t.orm.em.fork();
    expect(await retryOwnedEvent(em, teamId, events.failed.id)).toMatchObject({ kind: "queued", endpointId: endpoints.paused.id, forwardingPaused: true });
    const [destination] = await destinationsOf(endpoints.paused.id);
    expect(await t.db.query("select destination_id, status from deliveries where event_id = $1", [events.failed.id])).toEqual([
      { destination_id: destination!.id, status: "pending" },
    ]);
    expect(await t.db.query("select status from events where id = $1", [events.failed.id])).toEqual([{ status: "pending" }]);
    // And "retry failed" of the endpoint finds the others.
    expect(await retryFailedOfEndpoint(t.orm.em.fork(), teamId, endpoints.paused.id)).toEqual({ count: 1, forwardingPaused: true });
    expect(await t.db.query("select status from events where id = $1", [events.failedToo.id])).toEqual([{ status: "pending" }]);
    expect(await eventCountMismatches(t.db)).toEqual([]);
  });
});
