import { describe, expect } from "vitest";
import { test } from "@rehook/vitest-config/service-fixtures";
import { anonymousCaller, anotherUser, callerFor, capture, dashboardRequest, expectRefused, MISSING_ID, rehookCode, type Caller } from "./caller.js";

/** Wire (snake_case) names the dashboard never sees: the procedures answer the domain view. */
const SNAKE_SETTINGS = [
  "webhook_url",
  "destination_url",
  "retry_policy",
  "pause_after_failures",
  "consecutive_failures",
  "forwarding_paused",
  "paused_reason",
  "paused_at",
  "retention_days",
  "kept_for_days",
  "created_at",
  "event_count",
  "last_event_at",
];

describe("without a session", () => {
  test("every endpoints procedure answers UNAUTHORIZED", async ({ services }) => {
    const { caller } = anonymousCaller(services);
    const calls: Array<[string, (c: Caller) => Promise<unknown>]> = [
      ["list", (c) => c.endpoints.list()],
      ["get", (c) => c.endpoints.get({ id: MISSING_ID })],
      ["create", (c) => c.endpoints.create({ name: "anonymous" })],
      ["update", (c) => c.endpoints.update({ id: MISSING_ID, name: "anonymous" })],
      ["delete", (c) => c.endpoints.delete({ id: MISSING_ID })],
      ["secret", (c) => c.endpoints.secret({ id: MISSING_ID })],
      ["rotateSecret", (c) => c.endpoints.rotateSecret({ id: MISSING_ID })],
      ["resume", (c) => c.endpoints.resume({ id: MISSING_ID })],
      ["activity", (c) => c.endpoints.activity({ id: MISSING_ID, range: "hour" })],
      ["retryFailed", (c) => c.endpoints.retryFailed({ id: MISSING_ID })],
    ];
    for (const [name, call] of calls) {
      const error = await expectRefused(call(caller), "UNAUTHORIZED", "Sign in first, then try again.");
      expect(rehookCode(error), name).toBeNull();
    }
  });
});

describe("endpoints.create, get, list", () => {
  test("answers the endpoint as the domain view (camelCase names, Date times), and lists it", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    // The retry policy and the breaker are the first destination's (destinationUrl): kept with it.
    const created = await caller.endpoints.create({
      name: "Orders",
      destinationUrl: "http://127.0.0.1:9/orders",
      retryPolicy: { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 60_000 },
      pauseAfterFailures: 5,
      retentionDays: 7,
      response: { status: 202, body: "ok" },
      verification: { scheme: "stripe", secret: "whsec_abcdefgh1234" },
    });
    expect(created).toMatchObject({
      name: "Orders",
      slug: expect.stringMatching(/^orders-/),
      webhookUrl: `http://rehook.test/api/webhook/${created.slug}`,
      destinationUrl: "http://127.0.0.1:9/orders",
      destinationCount: 1,
      retryPolicy: { maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 60_000 },
      pauseAfterFailures: 5,
      consecutiveFailures: 0,
      forwardingPaused: false,
      pausedReason: null,
      pausedAt: null,
      retentionDays: 7,
      keptForDays: 7,
      response: { status: 202, headers: {}, body: "ok", delayMs: 0 },
      handshake: null,
      // The secret is write-only: a hint of it comes back.
      verification: { scheme: "stripe", rejectInvalid: false, secret: { set: true, last4: "1234" } },
      createdAt: expect.any(Date),
    });
    for (const key of SNAKE_SETTINGS) expect(created, key).not.toHaveProperty(key);
    expect(JSON.stringify(created)).not.toContain("whsec_abcdefgh1234");

    expect(await caller.endpoints.get({ id: created.id })).toEqual(created);
    const listed = await caller.endpoints.list();
    expect(listed.map((e) => e.id)).toEqual([created.id]);
    expect(listed[0]).toMatchObject({ name: "Orders", retryPolicy: created.retryPolicy, eventCount: 0, lastEventAt: null, keptForDays: 7 });
    for (const key of SNAKE_SETTINGS) expect(listed[0], key).not.toHaveProperty(key);
  });

  test("lists only the caller's own endpoints", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const own = await caller.endpoints.create({ name: "Mine" });
    const other = await callerFor(services, await anotherUser(services));
    await other.caller.endpoints.create({ name: "Theirs" });
    expect((await caller.endpoints.list()).map((e) => e.id)).toEqual([own.id]);
  });

  test("refuses a destination on an internal address with the reason (BAD_REQUEST, validation_failed)", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const error = await expectRefused(
      caller.endpoints.create({ name: "internal", destinationUrl: "http://169.254.169.254/latest/meta-data/" }),
      "BAD_REQUEST",
      "destination URL refused: blocked: cloud metadata address",
    );
    expect(rehookCode(error)).toBe("validation_failed");
    expect(await caller.endpoints.list()).toEqual([]);
  });

  test("refuses settings out of their limits with the use case's sentence", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    await expectRefused(caller.endpoints.create({ name: "x", pauseAfterFailures: 0 }), "BAD_REQUEST", /pause_after_failures must be a whole number from 1 to 10000, or null/);
    await expectRefused(caller.endpoints.create({ name: "x", verification: { scheme: "stripe" } }), "BAD_REQUEST", "A stripe signature check needs the secret the sender signs with.");
    // An unknown scheme is refused by the contract's input, with the same kind of sentence.
    const schema = await expectRefused(caller.endpoints.create({ name: "x", verification: { scheme: "nope" as "stripe", secret: "s" } }), "BAD_REQUEST", /^Scheme must be one of /);
    expect(rehookCode(schema)).toBe("validation_failed");
    expect(await caller.endpoints.list()).toEqual([]);
  });
});

describe("endpoints.update, delete", () => {
  test("changes what is given and keeps the rest; delete answers null and the endpoint is gone", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const created = await caller.endpoints.create({ name: "Before", response: { status: 202 } });
    const updated = await caller.endpoints.update({
      id: created.id,
      name: "After",
      destinationUrl: "http://127.0.0.1:9/hook",
      stagingHost: "Staging.Example.com",
      retryPolicy: { maxAttempts: 2, initialDelayMs: 500, maxDelayMs: 5_000 },
      retentionDays: 0,
    });
    expect(updated).toMatchObject({
      id: created.id,
      slug: created.slug,
      name: "After",
      destinationUrl: "http://127.0.0.1:9/hook",
      stagingHost: "staging.example.com",
      retryPolicy: { maxAttempts: 2, initialDelayMs: 500, maxDelayMs: 5_000 },
      retentionDays: 0,
      keptForDays: 0,
      response: { status: 202, delayMs: 0 },
    });
    expect(await caller.endpoints.delete({ id: created.id })).toBeNull();
    await expectRefused(caller.endpoints.get({ id: created.id }), "NOT_FOUND");
  });
});

describe("text PostgreSQL refuses or cannot keep as sent", () => {
  const REFUSAL = "must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)";

  test("endpoint names and handshake tokens with a NUL or an unpaired surrogate answer BAD_REQUEST, and nothing is stored", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Orders" });
    for (const value of ["a\u0000b", "a\ud800b"]) {
      const created = await expectRefused(caller.endpoints.create({ name: value }), "BAD_REQUEST", `Name ${REFUSAL}.`);
      expect(rehookCode(created)).toBe("validation_failed");
      await expectRefused(caller.endpoints.update({ id: endpoint.id, name: value }), "BAD_REQUEST", `Name ${REFUSAL}.`);
      await expectRefused(caller.endpoints.update({ id: endpoint.id, handshake: { provider: "slack", token: "a\ud800b-token" } }), "BAD_REQUEST", `Token ${REFUSAL}.`);
    }
    expect(await caller.endpoints.list()).toEqual([expect.objectContaining({ id: endpoint.id, name: "Orders", handshake: null })]);
    // Well-formed text beyond ASCII (a surrogate pair, an emoji) is still a name.
    expect(await caller.endpoints.update({ id: endpoint.id, name: "Orders \u{1F680} é" })).toMatchObject({ name: "Orders \u{1F680} é" });
  });
});

describe("endpoints.secret, rotateSecret", () => {
  test("reveals and regenerates an endpoint secret", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Signed" });
    const before = (await caller.endpoints.secret({ id: endpoint.id })).secret;
    expect(before).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const rotated = (await caller.endpoints.rotateSecret({ id: endpoint.id })).secret;
    expect(rotated).not.toBe(before);
    expect((await caller.endpoints.secret({ id: endpoint.id })).secret).toBe(rotated);
  });
});

describe("endpoints.resume, retryFailed, activity", () => {
  test("answer the endpoint, the queued count and the charts' series", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Charts" });
    await capture(services, endpoint.slug, "{}");
    expect(await caller.endpoints.resume({ id: endpoint.id })).toMatchObject({ id: endpoint.id, forwardingPaused: false, consecutiveFailures: 0 });
    expect(await caller.endpoints.retryFailed({ id: endpoint.id })).toEqual({ count: 0, forwardingPaused: false, message: "0 failed events queued" });
    const activity = await caller.endpoints.activity({ id: endpoint.id, range: "hour" });
    expect(activity).toMatchObject({ range: "hour", bucketMs: 60_000 });
    expect(activity.points.length).toBeGreaterThan(0);
    expect(activity.totals.captured).toBe(1);
  });

  test("refuses a range it does not know before the use case runs, with the contract's sentence", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const error = await expectRefused(caller.endpoints.activity({ id: MISSING_ID, range: "year" as "hour" }), "BAD_REQUEST", /^Range: /);
    expect(rehookCode(error)).toBe("validation_failed");
  });
});

describe("another user's endpoint", () => {
  test("answers NOT_FOUND on every procedure, exactly like a missing one, and is left untouched", async ({ services, user }) => {
    const alice = await callerFor(services, user);
    const aliceEndpoint = await alice.caller.endpoints.create({ name: "Alice orders" });
    const bob = await callerFor(services, await anotherUser(services));
    const calls: Array<[string, (id: string) => Promise<unknown>]> = [
      ["endpoints.get", (id) => bob.caller.endpoints.get({ id })],
      ["endpoints.update", (id) => bob.caller.endpoints.update({ id, name: "taken over" })],
      ["endpoints.secret", (id) => bob.caller.endpoints.secret({ id })],
      ["endpoints.rotateSecret", (id) => bob.caller.endpoints.rotateSecret({ id })],
      ["endpoints.resume", (id) => bob.caller.endpoints.resume({ id })],
      ["endpoints.retryFailed", (id) => bob.caller.endpoints.retryFailed({ id })],
      ["endpoints.delete", (id) => bob.caller.endpoints.delete({ id })],
    ];
    for (const [name, call] of calls) {
      const foreign = await expectRefused(call(aliceEndpoint.id), "NOT_FOUND");
      const absent = await expectRefused(call(MISSING_ID), "NOT_FOUND");
      expect(rehookCode(foreign), name).toBe("not_found");
      expect(foreign.message.replace(aliceEndpoint.id, "ID"), name).toBe(absent.message.replace(MISSING_ID, "ID"));
    }
    const secret = await alice.caller.endpoints.secret({ id: aliceEndpoint.id });
    expect(await alice.caller.endpoints.get({ id: aliceEndpoint.id })).toEqual(aliceEndpoint);
    expect((await alice.caller.endpoints.secret({ id: aliceEndpoint.id })).secret).toBe(secret.secret);
  });
});

describe("mutations over HTTP (request facts present)", () => {
  test("refuses one sent as text/plain with UNSUPPORTED_MEDIA_TYPE, and one from a foreign Origin with FORBIDDEN; nothing is created", async ({ services, user }) => {
    const plain = await callerFor(services, user, { request: dashboardRequest({ contentType: "text/plain" }) });
    const media = await expectRefused(plain.caller.endpoints.create({ name: "sneaky" }), "UNSUPPORTED_MEDIA_TYPE", "Mutations must be JSON. Send them with Content-Type: application/json.");
    expect(rehookCode(media)).toBeNull();
    const foreign = await callerFor(services, user, { request: dashboardRequest({ origin: "https://evil.example", secFetchSite: "cross-site" }) });
    await expectRefused(foreign.caller.endpoints.create({ name: "sneaky" }), "FORBIDDEN", "This cross-site request was refused. Send it from the dashboard itself.");
    // Without an Origin, Sec-Fetch-Site decides.
    const unnamed = await callerFor(services, user, { request: dashboardRequest({ origin: null, secFetchSite: "cross-site" }) });
    await expectRefused(unnamed.caller.endpoints.create({ name: "sneaky" }), "FORBIDDEN");
    const bare = await callerFor(services, user, { request: dashboardRequest({ origin: null, secFetchSite: null }) });
    await expectRefused(bare.caller.endpoints.create({ name: "sneaky" }), "FORBIDDEN");
    const { caller } = await callerFor(services, user);
    expect((await caller.endpoints.list()).map((e) => e.name)).not.toContain("sneaky");
  });

  test("takes a JSON mutation from our own Origin (any case of the media type), or same-origin without one; queries are not checked", async ({ services, user }) => {
    const own = await callerFor(services, user, { request: dashboardRequest({ contentType: "Application/JSON; charset=utf-8" }) });
    expect(await own.caller.endpoints.create({ name: "From the dashboard" })).toMatchObject({ name: "From the dashboard" });
    const sameSite = await callerFor(services, user, { request: dashboardRequest({ origin: null, secFetchSite: "same-origin" }) });
    expect(await sameSite.caller.endpoints.create({ name: "Same origin" })).toMatchObject({ name: "Same origin" });
    // A query changes nothing, so a foreign page may read its own errors (it has no cookie of ours anyway).
    const foreign = await callerFor(services, user, { request: dashboardRequest({ origin: "https://evil.example", contentType: null }) });
    expect((await foreign.caller.endpoints.list()).map((e) => e.name).sort()).toEqual(["From the dashboard", "Same origin"]);
  });

  test("checks the origin before the session: an anonymous cross-site mutation is FORBIDDEN", async ({ services }) => {
    const { caller } = anonymousCaller(services, { request: dashboardRequest({ origin: "https://evil.example" }) });
    await expectRefused(caller.auth.logIn({ email: "a@example.com", password: "a long enough password" }), "FORBIDDEN");
    await expectRefused(caller.endpoints.create({ name: "x" }), "FORBIDDEN");
  });
});
