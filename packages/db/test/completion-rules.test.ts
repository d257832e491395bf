import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  completionAlerts,
  createUuidV7Generator,
  judgeBreaker,
  eventStatusOfDeliveries,
  uuidv7,
  type BreakerState,
  type DeliveryRowStatus,
  type EventStatus,
  type WatchingRule,
} from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { completeDeliveries, createPool, type DeliveryOutcome, type Pool } from "../src/index.js";

// The completion's rules live twice: as pure functions in core (eventStatusOfDeliveries,
// judgeBreaker, completionAlerts), and inside the one statement that stores a batch of
// attempts (deliveries.ts COMPLETE with alerts.ts COMPLETION_ALERTS_CTE). Each case below is
// set up in PostgreSQL, completed by that statement, and what it stored is compared with what
// the functions say for the same input: the event's status and next retry, the breaker's
// count, pause and reason, and the alerts raised.

/** A batch's attempt to the destination under test, each for an event of its own (ids in this order). */
interface Attempt {
  outcome: "delivered" | "failed";
  /** Its start, ms after the case's base time. */
  at: number;
  /** A retry is due this long after the failure (absent: the failure is final). */
  retryInMs?: number;
  /** The answer's status (a failure answers 500 by default). */
  status?: number;
}

interface Case {
  name: string;
  breaker: BreakerState;
  /** Each event's delivery to another destination of the endpoint, as stored before the batch (absent: none). */
  other?: { status: DeliveryRowStatus; retryInMs?: number };
  attempts: Attempt[];
}

const closed = (pauseAfterFailures: number | null, consecutiveFailures = 0): BreakerState => ({ pauseAfterFailures, consecutiveFailures, paused: false });
const d = (at: number): Attempt => ({ outcome: "delivered", at });
const f = (at: number, fields: Partial<Attempt> = {}): Attempt => ({ outcome: "failed", at, ...fields });

const CASES: Case[] = [
  { name: "a delivery on a closed breaker", breaker: closed(3), attempts: [d(0)] },
  { name: "a failure: half-open", breaker: closed(3), attempts: [f(0)] },
  { name: "the Nth failure in a row trips it", breaker: closed(3, 2), attempts: [f(0, { status: 503 })] },
  { name: "it stops at the Nth: later results change nothing", breaker: closed(3, 1), attempts: [f(0), f(1, { status: 502 }), f(2, { status: 503 }), d(3)] },
  { name: "delivered, then failed", breaker: closed(3, 2), attempts: [d(0), f(1)] },
  { name: "failed, then delivered: tripped first", breaker: closed(3, 2), attempts: [f(0), d(1)] },
  { name: "judged in start order, not batch order", breaker: closed(3, 2), attempts: [d(5), f(1)] },
  { name: "a tie in start: the event id decides (failed first)", breaker: closed(2, 1), attempts: [f(7), d(7)] },
  { name: "a tie in start: the event id decides (delivered first)", breaker: closed(2, 1), attempts: [d(7), f(7)] },
  { name: "paused: it stands still", breaker: { pauseAfterFailures: 3, consecutiveFailures: 3, paused: true }, attempts: [f(0), d(1)] },
  { name: "no threshold: it counts and never trips", breaker: closed(null, 5), attempts: [f(0), f(1)] },
  { name: "resumed (half-open, count kept): a failed probe trips it at N + 1", breaker: closed(3, 3), attempts: [f(0)] },
  { name: "a failure with a retry due counts and trips", breaker: closed(1), attempts: [f(0, { retryInMs: 60_000 })] },
  { name: "several events failing at once", breaker: closed(null), other: { status: "pending" }, attempts: [f(0), f(1)] },
  { name: "with another delivery delivered", breaker: closed(null), other: { status: "delivered" }, attempts: [d(0)] },
  { name: "with another delivery failed before: still failed, nothing new raised", breaker: closed(null), other: { status: "failed" }, attempts: [d(0)] },
  { name: "with another delivery pending and due: a final failure fails the event", breaker: closed(3), other: { status: "pending" }, attempts: [f(0)] },
  { name: "with another delivery waiting for its retry, this one too: the sooner", breaker: closed(null), other: { status: "pending", retryInMs: 3_600_000 }, attempts: [f(0, { retryInMs: 1_000 })] },
  { name: "with another delivery waiting for its retry, this one delivered", breaker: closed(null), other: { status: "pending", retryInMs: 3_600_000 }, attempts: [d(0)] },
  { name: "with another delivery due, this one waiting for its retry: due", breaker: closed(null), other: { status: "pending" }, attempts: [f(0, { retryInMs: 1_000 })] },
];

/** The rules every case's team has: what watches, and what must not raise anything. */
const RULES: Array<{ key: string; trigger: string; endpoint: "this" | "other" | null; enabled?: boolean; paused?: boolean }> = [
  { key: "any", trigger: "delivery_failed", endpoint: null },
  { key: "mine", trigger: "delivery_failed", endpoint: "this" },
  { key: "elsewhere", trigger: "delivery_failed", endpoint: "other" },
  { key: "off", trigger: "delivery_failed", endpoint: null, enabled: false },
  { key: "muted", trigger: "destination_paused", endpoint: null, paused: true },
  { key: "pauses", trigger: "destination_paused", endpoint: null },
  { key: "pauses-here", trigger: "destination_paused", endpoint: "this" },
  { key: "health", trigger: "health_low", endpoint: null },
];

let db: TestDatabase;
let pool: Pool;
const nextId = createUuidV7Generator(() => 1_800_000_000_000);

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

const endpointRow = async (teamId: string) => {
  const id = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [id, teamId, id, `s-${id}`]);
  return id;
};
const destinationRow = async (endpointId: string, position: number, breaker: BreakerState) => {
  const id = uuidv7();
  await db.query(
    `insert into destinations (id, endpoint_id, position, name, url, pause_after_failures, consecutive_failures, forwarding_paused_at, paused_reason, created_at, updated_at)
     values ($1, $2, $3, 'd', 'https://example.com/in', $4, $5, case when $6 then now() end, case when $6 then 'as it was' end, now(), now())`,
    [id, endpointId, position, breaker.pauseAfterFailures, breaker.consecutiveFailures, breaker.paused],
  );
  return id;
};

/** A case set up in a team of its own: its events, their deliveries (the one under test leased for attempt 1), its rules. */
async function setUp(c: Case, index: number) {
  const teamId = await insertUserWithTeam(db, `rules-${index}-${uuidv7()}@example.com`);
  const endpointId = await endpointRow(teamId);
  const elsewhereId = await endpointRow(teamId);
  const destinationId = await destinationRow(endpointId, 0, c.breaker);
  const otherId = await destinationRow(endpointId, 1, closed(null));
  const eventIds = c.attempts.map(() => nextId());
  const before: EventStatus = eventStatusOfDeliveries([
    { status: "pending", nextAttemptAt: null },
    ...(c.other ? [{ status: c.other.status, nextAttemptAt: c.other.retryInMs ? 1 : null }] : []),
  ]).status;
  for (const eventId of eventIds) {
    await db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
       values ($1, $2, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', $3)`,
      [eventId, endpointId, before],
    );
    await db.query(
      `insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, lease_expires_at) values ($1, $2, $3, 'pending', 1, now() + interval '1 minute')`,
      [eventId, destinationId, endpointId],
    );
    if (c.other) {
      await db.query(
        `insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, next_attempt_at, completed_at)
         values ($1, $2, $3, $4, 1, case when $5::float8 is null then null else now() + make_interval(secs => $5::float8 / 1000) end, case when $4 <> 'pending' then now() end)`,
        [eventId, otherId, endpointId, c.other.status, c.other.retryInMs ?? null],
      );
    }
  }
  const rules: Array<WatchingRule & { key: string }> = [];
  for (const rule of RULES) {
    const id = uuidv7();
    const ruleEndpoint = rule.endpoint === "this" ? endpointId : rule.endpoint === "other" ? elsewhereId : null;
    await db.query(
      `insert into alert_rules (id, team_id, name, trigger, threshold, endpoint_id, channel, target, enabled, paused_reason)
       values ($1, $2, $3, $4, $5, $6, 'webhook', 'https://example.com/alerts', $7, $8)`,
      [id, teamId, rule.key, rule.trigger, rule.trigger === "health_low" ? 90 : null, ruleEndpoint, rule.enabled ?? true, rule.paused ? "dead hook" : null],
    );
    rules.push({ key: rule.key, id, trigger: rule.trigger as WatchingRule["trigger"], enabled: rule.enabled ?? true, paused: rule.paused ?? false, endpointId: ruleEndpoint });
  }
  return { endpointId, destinationId, otherId, eventIds, before, rules };
}

const failureOf = (attempt: Attempt) => (attempt.outcome === "failed" ? `destination answered ${attempt.status ?? 500}` : null);

describe("the completion statement and core's completion rules agree", () => {
  it.each(CASES.map((c, index) => [c.name, c, index] as const))("%s", async (_name, c, index) => {
    const { endpointId, destinationId, eventIds, before, rules } = await setUp(c, index);
    const base = Date.now() - 10_000;
    const outcomes: DeliveryOutcome[] = c.attempts.map((attempt, i) => ({
      id: eventIds[i]!,
      destinationId,
      attempt: 1,
      heldOn: "delivery",
      probe: false,
      otherDeliveries: c.other !== undefined,
      status: attempt.outcome,
      retryInMs: attempt.outcome === "failed" ? (attempt.retryInMs ?? null) : null,
      startedAt: base + attempt.at,
      latencyMs: 3,
      responseStatus: attempt.outcome === "failed" ? (attempt.status ?? 500) : 200,
      responseHeaders: [],
      responseBody: null,
      responseTruncated: false,
      error: null,
    }));
    // Stored in one batch, in the order listed (not the order of their starts).
    expect(await completeDeliveries(pool, outcomes)).toHaveLength(outcomes.length);

    // The breaker.
    const judged = judgeBreaker(
      c.breaker,
      c.attempts.map((attempt, i) => ({ outcome: attempt.outcome, startedAt: base + attempt.at, eventId: eventIds[i]!, failure: failureOf(attempt) })),
    );
    const [destination] = await db.query<{ consecutive_failures: number; paused: boolean; paused_reason: string | null }>(
      "select consecutive_failures, forwarding_paused_at is not null as paused, paused_reason from destinations where id = $1",
      [destinationId],
    );
    expect(destination).toEqual({
      consecutive_failures: judged.consecutiveFailures,
      paused: c.breaker.paused || judged.trips,
      paused_reason: judged.trips ? judged.reason : c.breaker.paused ? "as it was" : null,
    });

    // Each event's status and next retry, from its deliveries as stored.
    const after: Array<{ id: string; was: EventStatus; status: EventStatus }> = [];
    for (const [i, eventId] of eventIds.entries()) {
      const deliveries = await db.query<{ destination_id: string; status: DeliveryRowStatus; next_attempt_at: Date | null }>(
        "select destination_id, status, next_attempt_at from deliveries where event_id = $1",
        [eventId],
      );
      const attempt = c.attempts[i]!;
      const mine = deliveries.find((row) => row.destination_id === destinationId)!;
      expect([mine.status, mine.next_attempt_at !== null]).toEqual(attempt.outcome === "failed" && attempt.retryInMs ? ["pending", true] : [attempt.outcome, false]);
      const summary = eventStatusOfDeliveries(deliveries.map((row) => ({ status: row.status, nextAttemptAt: row.next_attempt_at?.getTime() ?? null })));
      const [event] = await db.query<{ status: EventStatus; next_attempt_at: Date | null }>("select status, next_attempt_at from events where id = $1", [eventId]);
      expect({ status: event!.status, nextAttemptAt: event!.next_attempt_at?.getTime() ?? null }).toEqual(summary);
      after.push({ id: eventId, was: before, status: event!.status });
    }

    // The alerts.
    const expected = completionAlerts(rules, {
      endpointId,
      events: after.filter((event) => event.was !== event.status),
      tripped: judged.trips ? [{ destinationId, eventId: judged.trippedBy!.eventId }] : [],
    });
    const raised = await db.query<{ rule_id: string; kind: string; event_id: string; endpoint_id: string; destination_id: string | null }>(
      "select rule_id, kind, event_id, endpoint_id, destination_id from alert_outbox where rule_id = any($1::uuid[])",
      [rules.map((rule) => rule.id)],
    );
    const key = (alert: { ruleId: string; kind: string; eventId: string; destinationId: string | null }) => `${alert.ruleId} ${alert.kind} ${alert.eventId} ${alert.destinationId}`;
    expect(raised.map((row) => key({ ruleId: row.rule_id, kind: row.kind, eventId: row.event_id, destinationId: row.destination_id })).sort()).toEqual(expected.map(key).sort());
    expect(raised.every((row) => row.endpoint_id === endpointId)).toBe(true);
  });

  it("covers each rule: every case's outcome is one the functions tell apart", () => {
    // Guards the table itself: it trips, stands still, keeps counting, raises both kinds, and leaves events in every status.
    const trips = CASES.filter((c) => judgeBreaker(c.breaker, c.attempts.map((a, i) => ({ outcome: a.outcome, startedAt: a.at, eventId: String(i).padStart(3, "0"), failure: failureOf(a) }))).trips);
    expect(trips.length).toBeGreaterThanOrEqual(5);
    expect(CASES.some((c) => c.breaker.paused)).toBe(true);
    expect(CASES.some((c) => c.breaker.pauseAfterFailures === null)).toBe(true);
    expect(new Set(CASES.map((c) => c.other?.status ?? "none"))).toEqual(new Set(["none", "pending", "delivered", "failed"]));
  });
});
