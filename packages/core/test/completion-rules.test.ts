import { describe, expect, it } from "vitest";
import {
  breakerPosition,
  breakerReason,
  breakerSummary,
  completionAlerts,
  judgeBreaker,
  ruleWatches,
  eventStatusOfDeliveries,
  type BreakerAttempt,
  type WatchingRule,
} from "../src/index.js";

// The completion's rules as pure functions: an event's status from its deliveries, the
// circuit breaker, and which alert rules a completion raises. The completion statement in
// packages/db mirrors them (packages/db/test/completion-rules.test.ts runs both on one table).

describe("an event's status from its deliveries", () => {
  it.each([
    ["none: only captured", [], "captured", null],
    ["every delivery delivered", [{ status: "delivered", nextAttemptAt: null }], "delivered", null],
    ["one pending and due (or under way)", [{ status: "delivered", nextAttemptAt: null }, { status: "pending", nextAttemptAt: null }], "pending", null],
    ["failed wins over pending", [{ status: "pending", nextAttemptAt: null }, { status: "failed", nextAttemptAt: null }], "failed", null],
    ["failed wins over delivered", [{ status: "delivered", nextAttemptAt: null }, { status: "failed", nextAttemptAt: null }], "failed", null],
  ] as const)("%s", (_name, deliveries, status, nextAttemptAt) => {
    expect(eventStatusOfDeliveries(deliveries)).toEqual({ status, nextAttemptAt });
  });

  it("waits for the soonest retry only when every pending delivery waits for one", () => {
    expect(eventStatusOfDeliveries([{ status: "pending", nextAttemptAt: 2_000 }, { status: "pending", nextAttemptAt: 1_000 }, { status: "delivered", nextAttemptAt: null }])).toEqual({
      status: "pending",
      nextAttemptAt: 1_000,
    });
    expect(eventStatusOfDeliveries([{ status: "pending", nextAttemptAt: 2_000 }, { status: "pending", nextAttemptAt: null }])).toEqual({ status: "pending", nextAttemptAt: null });
    // A failed event with another delivery still waiting for its retry says when that is.
    expect(eventStatusOfDeliveries([{ status: "failed", nextAttemptAt: null }, { status: "pending", nextAttemptAt: 5_000 }])).toEqual({ status: "failed", nextAttemptAt: 5_000 });
  });
});

const failed = (startedAt: number, failure = "destination answered 500", eventId = `e${startedAt}`): BreakerAttempt => ({ outcome: "failed", startedAt, eventId, failure });
const delivered = (startedAt: number, eventId = `e${startedAt}`): BreakerAttempt => ({ outcome: "delivered", startedAt, eventId, failure: null });

describe("the circuit breaker", () => {
  it("is closed without failures or without a breaker, half-open after a failure, open while paused", () => {
    expect(breakerPosition({ pauseAfterFailures: 3, consecutiveFailures: 0, paused: false })).toBe("closed");
    expect(breakerPosition({ pauseAfterFailures: null, consecutiveFailures: 7, paused: false })).toBe("closed");
    expect(breakerPosition({ pauseAfterFailures: 3, consecutiveFailures: 1, paused: false })).toBe("half_open");
    expect(breakerPosition({ pauseAfterFailures: 3, consecutiveFailures: 3, paused: true })).toBe("open");
  });

  it("adds one per failed attempt and trips at the Nth in a row, with that attempt's reason", () => {
    expect(judgeBreaker({ pauseAfterFailures: 3, consecutiveFailures: 1, paused: false }, [failed(1)])).toEqual({ consecutiveFailures: 2, trips: false, trippedBy: null, reason: null });
    const tripped = judgeBreaker({ pauseAfterFailures: 3, consecutiveFailures: 2, paused: false }, [failed(1, "destination answered 503")]);
    expect(tripped).toEqual({ consecutiveFailures: 3, trips: true, trippedBy: failed(1, "destination answered 503"), reason: "3 consecutive failed attempts (last: destination answered 503)" });
  });

  it("stops at the Nth failure: what the batch holds after it arrived while it was open", () => {
    const judged = judgeBreaker({ pauseAfterFailures: 3, consecutiveFailures: 0, paused: false }, [failed(4, "timeout"), failed(1), failed(2), failed(3, "destination answered 502"), delivered(5)]);
    expect(judged).toMatchObject({ consecutiveFailures: 3, trips: true, reason: "3 consecutive failed attempts (last: destination answered 502)" });
    expect(judged.trippedBy!.startedAt).toBe(3);
  });

  it("sets the count to 0 at a delivered attempt and judges in start order, then event id", () => {
    expect(judgeBreaker({ pauseAfterFailures: 3, consecutiveFailures: 2, paused: false }, [failed(2), delivered(1)])).toMatchObject({ consecutiveFailures: 1, trips: false });
    expect(judgeBreaker({ pauseAfterFailures: 3, consecutiveFailures: 2, paused: false }, [delivered(2), failed(1)])).toMatchObject({ consecutiveFailures: 3, trips: true });
    // Same start: the event ids decide (a, delivered, before b, failed).
    expect(judgeBreaker({ pauseAfterFailures: 5, consecutiveFailures: 4, paused: false }, [failed(1, "x", "b"), delivered(1, "a")])).toMatchObject({ consecutiveFailures: 1, trips: false });
    expect(judgeBreaker({ pauseAfterFailures: 5, consecutiveFailures: 4, paused: false }, [failed(1, "x", "a"), delivered(1, "b")])).toMatchObject({ consecutiveFailures: 5, trips: true });
  });

  it("stands still while open: late results of sends under way change nothing", () => {
    expect(judgeBreaker({ pauseAfterFailures: 3, consecutiveFailures: 3, paused: true }, [failed(1), failed(2), delivered(3)])).toEqual({
      consecutiveFailures: 3,
      trips: false,
      trippedBy: null,
      reason: null,
    });
  });

  it("trips again on a failed probe after a resume (half-open with the count kept): the count reads N + 1", () => {
    expect(judgeBreaker({ pauseAfterFailures: 3, consecutiveFailures: 3, paused: false }, [failed(1)])).toMatchObject({
      consecutiveFailures: 4,
      trips: true,
      reason: "4 consecutive failed attempts (last: destination answered 500)",
    });
  });

  it("never trips without a threshold, and keeps counting", () => {
    expect(judgeBreaker({ pauseAfterFailures: null, consecutiveFailures: 9, paused: false }, [failed(1), failed(2)])).toEqual({ consecutiveFailures: 11, trips: false, trippedBy: null, reason: null });
  });

  it("reads the same on the card as in the reason", () => {
    expect(breakerReason(3, null)).toBe("3 consecutive failed attempts (last: unknown error)");
    expect(breakerSummary({ pauseAfterFailures: 3, consecutiveFailures: 3, paused: true })).toBe("Paused after 3 consecutive failed attempts.");
    expect(breakerSummary({ pauseAfterFailures: 3, consecutiveFailures: 1, paused: false })).toBe("1 consecutive failed attempt: sending one at a time until one is delivered.");
    expect(breakerSummary({ pauseAfterFailures: null, consecutiveFailures: 2, paused: false })).toBe("2 consecutive failed attempts.");
    expect(breakerSummary({ pauseAfterFailures: 3, consecutiveFailures: 0, paused: false })).toBeNull();
  });
});

describe("the alerts a completion raises", () => {
  const rule = (id: string, fields: Partial<WatchingRule> = {}): WatchingRule => ({ id, trigger: "delivery_failed", enabled: true, paused: false, endpointId: null, ...fields });
  const rules = [
    rule("any-endpoint"),
    rule("this-endpoint", { endpointId: "p1" }),
    rule("other-endpoint", { endpointId: "p2" }),
    rule("off", { enabled: false }),
    rule("paused", { paused: true }),
    rule("pauses", { trigger: "destination_paused" }),
    rule("health", { trigger: "health_low" }),
  ];

  it("raises delivery_failed for an event that reached failed, for each rule watching its endpoint", () => {
    const raised = completionAlerts(rules, {
      endpointId: "p1",
      events: [
        { id: "now-failed", was: "pending", status: "failed" },
        { id: "failed-before", was: "failed", status: "failed" },
        { id: "delivered", was: "pending", status: "delivered" },
      ],
      tripped: [],
    });
    expect(raised).toEqual([
      { ruleId: "any-endpoint", kind: "delivery_failed", eventId: "now-failed", endpointId: "p1", destinationId: null },
      { ruleId: "this-endpoint", kind: "delivery_failed", eventId: "now-failed", endpointId: "p1", destinationId: null },
    ]);
  });

  it("raises destination_paused for a tripped breaker, naming the event whose attempt tripped it", () => {
    expect(completionAlerts(rules, { endpointId: "p1", events: [], tripped: [{ destinationId: "d1", eventId: "e9" }] })).toEqual([
      { ruleId: "pauses", kind: "destination_paused", eventId: "e9", endpointId: "p1", destinationId: "d1" },
    ]);
  });

  it("a rule watches one trigger, while enabled and not paused, on its endpoint or all", () => {
    expect(ruleWatches(rule("r"), "delivery_failed", "p9")).toBe(true);
    expect(ruleWatches(rule("r", { endpointId: "p1" }), "delivery_failed", "p9")).toBe(false);
    expect(ruleWatches(rule("r"), "destination_paused", "p9")).toBe(false);
  });
});
