import { describe, expect, it } from "vitest";
import type { EndpointListItem, EndpointView, ReplayAttemptView } from "@rehook/services";
import { deliverySettingsFromWire, ingressSettingsFromWire } from "../src/api-v1/endpoint-input.js";
import { restEndpoint, restEndpointListItem, wireEndpoint } from "../src/api-v1/presenters/endpoint.js";
import { restReplayAttempt, restReplayOutcome, sessionReplayAttempt, sessionReplayOutcome } from "../src/api-v1/presenters/replay-attempt.js";

// The REST wire format from the domain views: snake_case names, ISO 8601 times, fields in a fixed order.

const createdAt = new Date("2025-01-02T03:04:05.678Z");
const pausedAt = new Date("2025-01-03T00:00:00.000Z");

const endpoint: EndpointView = {
  id: "0194a0b0-0000-7000-8000-000000000001",
  name: "Orders",
  slug: "orders-abcd1234",
  webhookUrl: "http://rehook.test/api/webhook/orders-abcd1234",
  destinationUrl: "https://api.example.com/in",
  health: { state: "degraded", successRate: 0.5 },
  deliveredCount: 1,
  failedCount: 1,
  destinationCount: 1,
  stagingHost: "staging.example.com",
  signRequests: true,
  keepProxyHeaders: false,
  retryPolicy: { maxAttempts: 3, initialDelayMs: 1_000, maxDelayMs: 60_000 },
  pauseAfterFailures: 5,
  consecutiveFailures: 5,
  forwardingPaused: true,
  pausedReason: "5 consecutive failed attempts",
  pausedAt,
  retentionDays: null,
  keptForDays: 30,
  response: { status: 202, headers: { "X-Reply": "yes" }, body: "queued", delayMs: 10 },
  handshake: { provider: "meta", token: { set: true, last4: "oken" } },
  verification: { scheme: "github", rejectInvalid: true, secret: { set: true, last4: "abcd" } },
  dedup: { key: "auto", window_s: 3600 },
  createdAt,
};

const PUBLIC_JSON = {
  id: endpoint.id,
  name: "Orders",
  slug: "orders-abcd1234",
  webhook_url: "http://rehook.test/api/webhook/orders-abcd1234",
  destination_url: "https://api.example.com/in",
  health: { state: "degraded", success_rate: 0.5 },
  keep_proxy_headers: false,
  retry_policy: { max_attempts: 3, initial_delay_ms: 1_000, max_delay_ms: 60_000 },
  pause_after_failures: 5,
  forwarding_paused: true,
  paused_reason: "5 consecutive failed attempts",
  paused_at: "2025-01-03T00:00:00.000Z",
  retention_days: null,
  kept_for_days: 30,
  response: { status: 202, headers: { "X-Reply": "yes" }, body: "queued", delay_ms: 10 },
  handshake: { provider: "meta", token: { set: true, last4: "oken" } },
  verification: { scheme: "github", reject_invalid: true, secret: { set: true, last4: "abcd" } },
  dedup: { key: "auto", window_s: 3600 },
  created_at: "2025-01-02T03:04:05.678Z",
};

describe("the endpoint presenter", () => {
  it("answers the public fields only, spelled and ordered as the API documents them", () => {
    expect(JSON.stringify(restEndpoint(endpoint))).toBe(JSON.stringify(PUBLIC_JSON));
  });

  it("keeps a domain field private until the presenter names it", () => {
    const grown = { ...endpoint, internalNote: "not for the wire" } as EndpointView;
    expect(JSON.stringify(restEndpoint(grown))).toBe(JSON.stringify(PUBLIC_JSON));
    expect(wireEndpoint(grown)).not.toHaveProperty("internalNote");
  });

  it("gives the CLI every field, the delivery counters and staging settings too, in the wire order", () => {
    expect(Object.keys(wireEndpoint(endpoint))).toEqual([
      "id",
      "name",
      "slug",
      "webhook_url",
      "destination_url",
      "health",
      "delivered_count",
      "failed_count",
      "staging_host",
      "sign_requests",
      "keep_proxy_headers",
      "retry_policy",
      "pause_after_failures",
      "consecutive_failures",
      "forwarding_paused",
      "paused_reason",
      "paused_at",
      "retention_days",
      "kept_for_days",
      "response",
      "handshake",
      "verification",
      "dedup",
      "created_at",
    ]);
    expect(wireEndpoint(endpoint)).toMatchObject({ delivered_count: 1, failed_count: 1, staging_host: "staging.example.com", sign_requests: true, consecutive_failures: 5 });
  });

  it("writes the hmac-sha256 settings only when the rule has them, and null settings as null", () => {
    const generic = { ...endpoint, verification: { scheme: "hmac-sha256" as const, rejectInvalid: false, secret: { set: true as const, last4: "" }, header: "X-Signature", encoding: "hex" as const, prefix: "sha256=" } };
    expect(JSON.stringify(restEndpoint(generic).verification)).toBe('{"scheme":"hmac-sha256","reject_invalid":false,"secret":{"set":true,"last4":""},"header":"X-Signature","encoding":"hex","prefix":"sha256="}');
    const bare = restEndpoint({ ...endpoint, retryPolicy: null, pausedAt: null, response: null, handshake: null, verification: null });
    expect(bare).toMatchObject({ retry_policy: null, paused_at: null, response: null, handshake: null, verification: null });
  });

  it("lists an endpoint with its event total and newest event time", () => {
    const item: EndpointListItem = { ...endpoint, eventCount: 2, lastEventAt: new Date("2025-01-04T00:00:00.000Z") };
    expect(JSON.stringify(restEndpointListItem(item))).toBe(JSON.stringify({ ...PUBLIC_JSON, event_count: 2, last_event_at: "2025-01-04T00:00:00.000Z" }));
    expect(restEndpointListItem({ ...item, eventCount: 0, lastEventAt: null })).toMatchObject({ event_count: 0, last_event_at: null });
  });
});

describe("the endpoint presenter's input side", () => {
  it("renames the ingress settings named, leaves out those left out, and passes null (clear) through", () => {
    expect(ingressSettingsFromWire({})).toEqual({});
    expect(ingressSettingsFromWire({ response: null, handshake: null, verification: null })).toEqual({ response: null, handshake: null, verification: null });
    expect(ingressSettingsFromWire({ response: { status: 202, body: "ok", delay_ms: 5 } })).toEqual({ response: { status: 202, headers: undefined, body: "ok", delayMs: 5 } });
    expect(ingressSettingsFromWire({ handshake: { provider: "zoom", token: "t" } })).toEqual({ handshake: { provider: "zoom", token: "t" } });
    expect(ingressSettingsFromWire({ verification: { scheme: "hmac-sha256", secret: "s", reject_invalid: true, header: "X-Sig", encoding: "base64", prefix: "v1=" } })).toEqual({
      verification: { scheme: "hmac-sha256", secret: "s", rejectInvalid: true, header: "X-Sig", encoding: "base64", prefix: "v1=" },
    });
  });

  it("renames the delivery settings named, and leaves out those left out", () => {
    expect(deliverySettingsFromWire({})).toEqual({});
    expect(deliverySettingsFromWire({ retry_policy: { max_attempts: 2, initial_delay_ms: 100, max_delay_ms: 200 }, pause_after_failures: null, retention_days: 7 })).toEqual({
      retryPolicy: { maxAttempts: 2, initialDelayMs: 100, maxDelayMs: 200 },
      pauseAfterFailures: null,
      retentionDays: 7,
    });
    expect(deliverySettingsFromWire({ retry_policy: null })).toEqual({ retryPolicy: null });
  });
});

describe("the replay attempt presenter", () => {
  const attempt: ReplayAttemptView = {
    id: "0194a0b0-0000-7000-8000-000000000002",
    eventId: "0194a0b0-0000-7000-8000-000000000003",
    environment: "custom",
    status: "delivered",
    responseStatus: 200,
    responseBody: "thanks",
    latencyMs: 12,
    destinationUrl: "https://api.example.com/in",
    destinationId: "0194a0b0-0000-7000-8000-000000000004",
    error: null,
    replayedAt: createdAt,
    modified: true,
  };

  it("answers the public API's fields, without the response body", () => {
    expect(JSON.stringify(restReplayAttempt(attempt))).toBe(
      '{"id":"0194a0b0-0000-7000-8000-000000000002","modified":true,"status":"delivered","response_status":200,"latency_ms":12,"destination_url":"https://api.example.com/in","destination_id":"0194a0b0-0000-7000-8000-000000000004","replayed_at":"2025-01-02T03:04:05.678Z"}',
    );
  });

  it("answers the session replay route's fields, with the response body", () => {
    expect(JSON.stringify(sessionReplayAttempt(attempt))).toBe(
      '{"id":"0194a0b0-0000-7000-8000-000000000002","status":"delivered","response_status":200,"response_body":"thanks","latency_ms":12,"destination_url":"https://api.example.com/in","destination_id":"0194a0b0-0000-7000-8000-000000000004","replayed_at":"2025-01-02T03:04:05.678Z","modified":true}',
    );
  });

  it("answers one attempt for a request that makes one, and the list for matched and failed, whatever their count", () => {
    expect(restReplayOutcome({ target: "original", attempts: [attempt], eventResolved: true })).toEqual(restReplayAttempt(attempt));
    expect(restReplayOutcome({ target: "failed", attempts: [attempt], eventResolved: true })).toEqual({ attempts: [restReplayAttempt(attempt)], event_resolved: true });
    expect(sessionReplayOutcome({ target: "matched", attempts: [attempt, attempt], eventResolved: false })).toEqual({ attempts: [sessionReplayAttempt(attempt), sessionReplayAttempt(attempt)], event_resolved: false });
  });
});
