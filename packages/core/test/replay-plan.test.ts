import { describe, expect, it } from "vitest";
import { bulkReplayTarget, eventResolved, markResolvedRefusal, planReplay, replayResolves, requestedTarget, type PlanDelivery, type ReplayPlanSource } from "../src/index.js";

// Which destinations a replay request goes to (or which error), and when a failure is resolved.

const billing = { id: "d-billing", name: "Billing", url: "https://billing.example.com/in" };
const ci = { id: "d-ci", name: "CI", url: "https://ci.example.com/hooks?v=2" };
const broken = { id: "d-broken", name: "Broken", url: "https://broken.example.com/" };

const delivery = (destinationId: string, status: PlanDelivery["status"], resolved = false): PlanDelivery => ({ destinationId, status, resolved });

/** A push event on the endpoint: Billing filtered it out; CI delivered, Broken failed. */
const push: ReplayPlanSource = {
  destinations: [billing, ci, broken],
  deliveries: [delivery(ci.id, "delivered"), delivery(broken.id, "failed")],
  stagingHost: "staging.example.com",
  path: "/github",
  query: "a=1",
};
const single: ReplayPlanSource = { ...push, deliveries: [delivery(ci.id, "failed")] };

describe("planReplay", () => {
  it("original with one matched destination is that one, not the endpoint's first", () => {
    expect(planReplay({ target: "original" }, single)).toEqual({
      ok: true,
      target: "original",
      sends: [{ environment: "original", destinationId: ci.id, url: "https://ci.example.com/hooks/github?v=2&a=1" }],
    });
  });

  it("original with several matched destinations is a 400 asking for a choice, naming them", () => {
    const plan = planReplay({ target: "original" }, push);
    expect(plan).toEqual({ ok: false, kind: "invalid", reason: expect.stringContaining("went to 2 destinations (CI, Broken): choose one with destination_id") });
    expect(plan.ok === false && plan.reason).toMatch(/target "matched".*target "failed"/);
  });

  it("original for an event that matched nothing: the endpoint's only destination, else a question or impossible", () => {
    const captured = { ...push, deliveries: [] };
    expect(planReplay({ target: "original" }, { ...captured, destinations: [billing] })).toMatchObject({ ok: true, sends: [{ destinationId: billing.id }] });
    expect(planReplay({ target: "original" }, captured)).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining("matched none of the endpoint's 3 destinations") });
    expect(planReplay({ target: "original" }, { ...captured, destinations: [] })).toMatchObject({ ok: false, kind: "impossible" });
    // Its only matched destination was removed since: the endpoint's only one now takes its place.
    expect(planReplay({ target: "original" }, { ...captured, destinations: [billing], deliveries: [delivery("gone", "failed")] })).toMatchObject({ ok: true, sends: [{ destinationId: billing.id }] });
  });

  it("destination_id: that destination, whatever the event matched; another endpoint's id is impossible", () => {
    expect(planReplay({ destinationId: billing.id }, push)).toEqual({
      ok: true,
      target: "original",
      sends: [{ environment: "original", destinationId: billing.id, url: "https://billing.example.com/in/github?a=1" }],
    });
    expect(planReplay({ target: "original", destinationId: broken.id }, push)).toMatchObject({ ok: true, sends: [{ destinationId: broken.id }] });
    expect(planReplay({ destinationId: "elsewhere" }, push)).toMatchObject({ ok: false, kind: "impossible", reason: expect.stringContaining("not one of this endpoint's destinations") });
  });

  it("destination_id goes with original or staging only", () => {
    for (const target of ["matched", "failed", "custom", "local"] as const) {
      expect(planReplay({ target, destinationId: ci.id, customUrl: "https://x.example/" }, push), target).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining("destination_id goes with") });
    }
    expect(planReplay({ target: "original", customUrl: "https://x.example/" }, single)).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining('goes with target "custom"') });
  });

  it("matched: one send per matched destination still there, in the endpoint's order", () => {
    expect(planReplay({ target: "matched" }, push)).toEqual({
      ok: true,
      target: "matched",
      sends: [
        { environment: "original", destinationId: ci.id, url: "https://ci.example.com/hooks/github?v=2&a=1" },
        { environment: "original", destinationId: broken.id, url: "https://broken.example.com/github?a=1" },
      ],
    });
    expect(planReplay({ target: "matched" }, { ...push, deliveries: [] })).toMatchObject({ ok: false, kind: "impossible" });
  });

  it("failed: only the failed deliveries not resolved yet", () => {
    expect(planReplay({ target: "failed" }, push)).toMatchObject({ ok: true, sends: [{ destinationId: broken.id }] });
    const twoFailed = { ...push, deliveries: [delivery(billing.id, "failed"), delivery(ci.id, "delivered"), delivery(broken.id, "failed", true)] };
    expect(planReplay({ target: "failed" }, twoFailed)).toMatchObject({ ok: true, sends: [{ destinationId: billing.id }] });
    expect(planReplay({ target: "failed" }, { ...push, deliveries: [delivery(broken.id, "failed", true)] })).toMatchObject({ ok: false, kind: "impossible", reason: expect.stringContaining("resolved already") });
    expect(planReplay({ target: "failed" }, { ...push, deliveries: [delivery(ci.id, "delivered")] })).toMatchObject({ ok: false, kind: "impossible", reason: expect.stringContaining("No delivery of this event failed") });
    expect(planReplay({ target: "failed" }, { ...push, deliveries: [delivery("gone", "failed")] })).toMatchObject({ ok: false, kind: "impossible", reason: expect.stringContaining("removed since") });
  });

  it("staging: the staging host on the chosen destination's URL, recorded with no destination", () => {
    expect(planReplay({ target: "staging" }, single)).toEqual({ ok: true, target: "staging", sends: [{ environment: "staging", destinationId: null, url: "https://staging.example.com/hooks/github?v=2&a=1" }] });
    expect(planReplay({ target: "staging", destinationId: billing.id }, push)).toMatchObject({ ok: true, sends: [{ url: "https://staging.example.com/in/github?a=1", destinationId: null }] });
    expect(planReplay({ target: "staging" }, push)).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining("choose one with destination_id") });
    expect(planReplay({ target: "staging" }, { ...single, stagingHost: null })).toMatchObject({ ok: false, kind: "impossible", reason: expect.stringContaining("staging hostname") });
  });

  it("local: the one destination's path, else the captured path; custom: the URL as given", () => {
    expect(planReplay({ target: "local" }, single)).toMatchObject({ ok: true, sends: [{ environment: "local", destinationId: null, url: "http://localhost:3000/hooks/github?v=2&a=1" }] });
    expect(planReplay({ target: "local" }, push)).toMatchObject({ ok: true, sends: [{ url: "http://localhost:3000/github?a=1" }] });
    expect(planReplay({ customUrl: "https://scratch.example/in" }, push)).toEqual({ ok: true, target: "custom", sends: [{ environment: "custom", destinationId: null, url: "https://scratch.example/in" }] });
    expect(planReplay({ target: "custom" }, push)).toMatchObject({ ok: false, kind: "invalid" });
  });

  it("edits of the path and query apply to every destination", () => {
    const plan = planReplay({ target: "matched" }, push, { path: "/edited", query: "b=2" });
    expect(plan).toMatchObject({ ok: true, sends: [{ url: "https://ci.example.com/hooks/edited?v=2&b=2" }, { url: "https://broken.example.com/edited?b=2" }] });
  });

  it("a sub-path that could leave a destination's path names that destination", () => {
    expect(planReplay({ target: "matched" }, { ...push, path: "/../admin" })).toMatchObject({ ok: false, kind: "impossible", reason: expect.stringMatching(/^CI: /) });
  });

  it("says where to send when nothing is named", () => {
    expect(requestedTarget({})).toBeNull();
    expect(planReplay({}, push)).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining("Say where to send the event") });
  });
});

describe("resolution", () => {
  const at = new Date("2026-12-09T10:00:00Z");
  const failed = { destinationId: broken.id, status: "failed" as const, resolvedAt: null };

  it("a failed event is resolved when every failed delivery is, and only then", () => {
    expect(eventResolved("failed", [{ status: "delivered", resolvedAt: null }, { ...failed, resolvedAt: at }])).toBe(true);
    expect(eventResolved("failed", [{ ...failed, resolvedAt: at }, failed])).toBe(false);
    expect(eventResolved("failed", [{ status: "pending", resolvedAt: null }, { ...failed, resolvedAt: at }])).toBe(true);
    // Nothing to resolve is not resolved; other statuses never are.
    expect(eventResolved("failed", [])).toBe(false);
    expect(eventResolved("delivered", [{ ...failed, resolvedAt: at }])).toBe(false);
  });

  it("a replay resolves a delivery only when it delivered to that destination", () => {
    expect(replayResolves(failed, { destinationId: broken.id, status: "delivered" })).toBe(true);
    expect(replayResolves(failed, { destinationId: null, status: "delivered" })).toBe(false);
    expect(replayResolves(failed, { destinationId: ci.id, status: "delivered" })).toBe(false);
    expect(replayResolves(failed, { destinationId: broken.id, status: "failed" })).toBe(false);
    expect(replayResolves({ ...failed, status: "delivered" }, { destinationId: broken.id, status: "delivered" })).toBe(false);
    expect(replayResolves({ ...failed, resolvedAt: at }, { destinationId: broken.id, status: "delivered" })).toBe(false);
  });

  it("only a failed, unresolved delivery can be marked resolved", () => {
    expect(markResolvedRefusal(failed)).toBeNull();
    expect(markResolvedRefusal({ ...failed, status: "delivered" })).toMatch(/is delivered, not failed/);
    expect(markResolvedRefusal({ ...failed, resolvedAt: at })).toMatch(/resolved already, at 2026-12-09T10:00:00.000Z/);
  });
});

describe("bulkReplayTarget", () => {
  const destinations = [billing, ci, broken];
  it("original is the endpoint's only destination, a question when it has several", () => {
    expect(bulkReplayTarget({ target: "original" }, [ci])).toEqual({ ok: true, environment: "original", target: "destination", destinationId: ci.id });
    expect(bulkReplayTarget({ target: "original" }, destinations)).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining("3 destinations (Billing, CI, Broken)") });
    expect(bulkReplayTarget({ target: "original" }, [])).toMatchObject({ ok: false, kind: "impossible" });
  });

  it("a destination by id, each event's matched or failed destinations, or a custom URL", () => {
    expect(bulkReplayTarget({ destinationId: broken.id }, destinations)).toEqual({ ok: true, environment: "original", target: "destination", destinationId: broken.id });
    expect(bulkReplayTarget({ destinationId: "elsewhere" }, destinations)).toMatchObject({ ok: false, kind: "impossible" });
    expect(bulkReplayTarget({ target: "failed" }, destinations)).toEqual({ ok: true, environment: "original", target: "failed", destinationId: null });
    expect(bulkReplayTarget({ target: "matched" }, destinations)).toEqual({ ok: true, environment: "original", target: "matched", destinationId: null });
    expect(bulkReplayTarget({ customUrl: "https://scratch.example/" }, destinations)).toEqual({ ok: true, environment: "custom", target: null, destinationId: null });
    expect(bulkReplayTarget({ target: "failed", destinationId: ci.id }, destinations)).toMatchObject({ ok: false, kind: "invalid" });
    expect(bulkReplayTarget({ target: "staging" }, destinations)).toMatchObject({ ok: false, kind: "invalid" });
  });
});
