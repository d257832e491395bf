import { describe, expect, it } from "vitest";
import { judgeChatPost, notificationSummary, summaryMessage, timeoutError, type NotifiedEvent } from "../src/index.js";

const event = (overrides: Partial<NotifiedEvent> = {}): NotifiedEvent => ({
  id: "0192f0e0-0000-7000-8000-000000000001",
  trigger: "failed",
  source: "stripe",
  eventType: "invoice.paid",
  endpointName: "stripe-prod",
  destinationUrl: "https://api.example.com/hooks",
  latencyMs: 30000,
  responseStatus: null,
  error: timeoutError(30000),
  at: new Date("2026-11-21T08:00:00Z"),
  ...overrides,
});

describe("chat message wording", () => {
  it("says why a forward failed: the timeout with thousands separators, the destination's status, or the error", () => {
    expect(notificationSummary(event())).toBe("invoice.paid failed to forward after the timeout of 30,000ms");
    expect(notificationSummary(event({ error: null, responseStatus: 503 }))).toBe("invoice.paid failed to forward: destination answered 503");
    expect(notificationSummary(event({ error: "connection refused" }))).toBe("invoice.paid failed to forward: connection refused");
    expect(notificationSummary(event({ trigger: "delivered", latencyMs: 42, error: null }))).toBe("invoice.paid was successfully forwarded in 42ms");
    expect(notificationSummary(event({ trigger: "captured" }))).toBe("invoice.paid was captured");
  });

  it("folds many events into counts per status and endpoint", () => {
    const events = [
      ...Array.from({ length: 14 }, () => event()),
      event({ endpointName: "github" }),
      event({ trigger: "delivered", endpointName: "github" }),
    ];
    const message = summaryMessage(events, "https://rehook.example/events");
    expect(message.text).toBe(
      "16 webhook notifications: 14 more failed events on stripe-prod in the last minute; 1 more failed event on github in the last minute; 1 more delivered event on github in the last minute",
    );
    expect(message.blocks.map((block) => block.type)).toEqual(["header", "section", "section", "context"]);
  });
});

describe("reading the provider's answer", () => {
  const answer = (status: number | null, body = "", retryAfter: string | null = null) => ({ status, body, retryAfter, error: status === null ? "connection refused" : null });

  it("treats 2xx as posted", () => {
    expect(judgeChatPost(answer(200, "ok"), 0)).toEqual({ kind: "posted" });
  });

  it("waits for Retry-After on 429 (30 s without one, at most an hour)", () => {
    expect(judgeChatPost(answer(429, "", "7"), 2)).toMatchObject({ kind: "retry", afterMs: 7000, failures: 2 });
    expect(judgeChatPost(answer(429), 0)).toMatchObject({ kind: "retry", afterMs: 30_000 });
    expect(judgeChatPost(answer(429, "", "99999"), 0)).toMatchObject({ kind: "retry", afterMs: 3_600_000 });
  });

  it("retries 5xx and network errors with backoff, then gives up", () => {
    expect(judgeChatPost(answer(503), 0)).toMatchObject({ kind: "retry", afterMs: 1000, failures: 1 });
    expect(judgeChatPost(answer(null), 3)).toMatchObject({ kind: "retry", afterMs: 8000, failures: 4 });
    expect(judgeChatPost(answer(500), 4)).toMatchObject({ kind: "give_up" });
  });

  it("does not retry 4xx; the fatal error strings pause with the fix", () => {
    expect(judgeChatPost(answer(404, "channel_not_found"), 0)).toEqual({
      kind: "pause",
      reason: "channel_not_found: the channel no longer exists or the app cannot post there: recreate the hook and save the new URL",
    });
    expect(judgeChatPost(answer(410, "channel_is_archived"), 0).kind).toBe("pause");
    expect(judgeChatPost(answer(404, "no_service"), 0).kind).toBe("pause");
    expect(judgeChatPost(answer(403, "invalid_token"), 0).kind).toBe("pause");
    expect(judgeChatPost(answer(403, "action_prohibited"), 0).kind).toBe("pause");
    expect(judgeChatPost(answer(400, "invalid_payload"), 0)).toMatchObject({ kind: "rejected", reason: expect.stringContaining("invalid_payload") });
    expect(judgeChatPost(answer(400, "something_new"), 0)).toMatchObject({ kind: "rejected", reason: "something_new: the provider refused the message (HTTP 400)" });
  });
});
