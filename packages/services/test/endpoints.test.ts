import { afterEach, describe, expect } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  createEndpoint,
  deleteEndpoint,
  endpointSecret,
  getEndpoint,
  listEndpoints,
  MAX_PAUSE_AFTER_FAILURES,
  MAX_RETENTION_DAYS,
  updateEndpoint,
  type Services,
} from "@rehook/services";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// Endpoints as the dashboard, the API and the CLI manage them: created with a capture URL and
// checked settings, listed and read only by their team (another team's id or slug answers
// as missing), changed and deleted with the change announced on the bus.

const noEndpoint = (id: string) => `There is no endpoint with the id ${id}. It may have been deleted; list your endpoints to find the right id.`;
const noSlug = (slug: string) => `There is no endpoint with the slug ${slug}. Check the slug, or list your endpoints to find it.`;

const stopListening: Array<() => void> = [];
afterEach(() => {
  for (const stop of stopListening.splice(0)) stop();
});

/** The endpoint changes the bus announces from now on. */
function changesHeard(services: Services): Array<{ id: string; change: string }> {
  const heard: Array<{ id: string; change: string }> = [];
  stopListening.push(
    services.bus.subscribe((message) => {
      if (message.type === "endpoint.changed") heard.push({ id: message.id, change: message.change });
    }),
  );
  return heard;
}

describe("createEndpoint", () => {
  test("answers the endpoint with its capture URL and every setting at its default", async ({ services, user }) => {
    const heard = changesHeard(services);
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "  Stripe Prod  ", destinationUrl: "  http://127.0.0.1:9/in  " });
    expect(endpoint).toEqual({
      id: expect.any(String),
      name: "Stripe Prod",
      slug: expect.stringMatching(/^stripe-prod-[a-z0-9]{8}$/),
      webhookUrl: `http://rehook.test/api/webhook/${endpoint.slug}`,
      destinationUrl: "http://127.0.0.1:9/in",
      health: { state: "capturing", successRate: null },
      deliveredCount: 0,
      failedCount: 0,
      stagingHost: null,
      signRequests: false,
      keepProxyHeaders: false,
      destinationCount: 1,
      retryPolicy: null,
      pauseAfterFailures: null,
      consecutiveFailures: 0,
      forwardingPaused: false,
      pausedReason: null,
      pausedAt: null,
      retentionDays: null,
      keptForDays: 30,
      response: null,
      handshake: null,
      verification: null,
      dedup: null,
      createdAt: expect.any(Date),
    });
    await waitFor(() => heard.some((change) => change.id === endpoint.id && change.change === "created"), "the creation to be announced");
  });

  test("takes delivery and storage settings, and a blank destination as capture-only", async ({ services, user }) => {
    const settings = {
      signRequests: true,
      keepProxyHeaders: true,
      retryPolicy: { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 60_000 },
      pauseAfterFailures: 3,
      retentionDays: 0,
    };
    // The retry policy and the breaker are the first destination's: the endpoint needs one to keep them.
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "tuned", destinationUrl: "http://127.0.0.1:9/in", ...settings });
    expect(endpoint).toMatchObject({ ...settings, destinationUrl: "http://127.0.0.1:9/in", destinationCount: 1, keptForDays: 0 });
    const captureOnly = await createEndpoint(services, { teamId: user.teamId, name: "capture only", destinationUrl: "   ", signRequests: true, keepProxyHeaders: true, retentionDays: 0 });
    expect(captureOnly).toMatchObject({ destinationUrl: null, destinationCount: 0, signRequests: true, keepProxyHeaders: true, retentionDays: 0, keptForDays: 0 });
  });

  test("refuses bad names, destinations and settings with the field's own message, creating nothing", async ({ services, user }) => {
    const create = (input: Record<string, unknown>) => createEndpoint(services, { teamId: user.teamId, name: "x", ...input });
    await expectRefused(create({ name: "   " }), "validation_failed", "Name is required.");
    await expectRefused(create({ name: "n".repeat(101) }), "validation_failed", "Name must be at most 100 characters.");
    await expectRefused(create({ destinationUrl: "ftp://example.com/in" }), "validation_failed", /^destination URL refused: /);
    await expectRefused(create({ retryPolicy: { maxAttempts: 0, initialDelayMs: 1_000, maxDelayMs: 1_000 } }), "validation_failed", /max_attempts must be a whole number from 1 to \d+/);
    await expectRefused(create({ retryPolicy: { maxAttempts: 3, initialDelayMs: 5_000, maxDelayMs: 1_000 } }), "validation_failed", /max_delay_ms must be a whole number from initial_delay_ms/);
    const pauseMessage = new RegExp(`pause_after_failures must be a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`);
    await expectRefused(create({ pauseAfterFailures: 0 }), "validation_failed", pauseMessage);
    await expectRefused(create({ pauseAfterFailures: 2.5 }), "validation_failed", pauseMessage);
    const retentionMessage = new RegExp(`retention_days must be a whole number of days from 0 \\(keep for ever\\) to ${MAX_RETENTION_DAYS}`);
    await expectRefused(create({ retentionDays: MAX_RETENTION_DAYS + 1 }), "validation_failed", retentionMessage);
    await expectRefused(create({ retentionDays: -1 }), "validation_failed", retentionMessage);
    expect(await listEndpoints(services, { teamId: user.teamId })).toEqual([]);
  });

  test("refuses a private destination when the server does not allow them, saying how to allow them", async ({ services, user }) => {
    const strict = { ...services, addressPolicy: { allowPrivate: false } };
    const refused = await expectRefused(createEndpoint(strict, { teamId: user.teamId, name: "local", destinationUrl: "http://127.0.0.1:3000/in" }), "validation_failed", /^destination URL refused: /);
    expect(refused.message).toMatch(/ALLOW_PRIVATE_DESTINATIONS/);
  });
});

describe("listEndpoints and getEndpoint", () => {
  test("list the team's endpoints with their event totals and newest event, and no other team's", async ({ services, user, other }) => {
    const quiet = await createEndpoint(services, { teamId: user.teamId, name: "quiet" });
    const busy = await createEndpoint(services, { teamId: user.teamId, name: "busy" });
    await createEndpoint(services, { teamId: other.teamId, name: "theirs" });
    await capture(services, busy.slug, "{}");
    const newest = await capture(services, busy.slug, "{}");
    const listed = await listEndpoints(services, { teamId: user.teamId });
    expect(listed.map((endpoint) => endpoint.id).sort()).toEqual([quiet.id, busy.id].sort());
    const byId = new Map(listed.map((endpoint) => [endpoint.id, endpoint]));
    expect(byId.get(quiet.id)).toMatchObject({ eventCount: 0, lastEventAt: null });
    expect(byId.get(busy.id)!.eventCount).toBe(2);
    const [row] = await services.orm.em.fork().getConnection().execute<Array<{ received_at: Date }>>("select received_at from events where id = ?", [newest]);
    expect(byId.get(busy.id)!.lastEventAt).toEqual(new Date(row!.received_at));
  });

  test("get finds the endpoint by id or slug; another team's answers as missing", async ({ services, user, other }) => {
    const mine = await createEndpoint(services, { teamId: user.teamId, name: "mine" });
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: mine.id } })).toEqual(mine);
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { slug: mine.slug } })).toEqual(mine);
    await expectRefused(getEndpoint(services, { teamId: other.teamId, endpoint: { id: mine.id } }), "not_found", noEndpoint(mine.id));
    await expectRefused(getEndpoint(services, { teamId: other.teamId, endpoint: { slug: mine.slug } }), "not_found", noSlug(mine.slug));
    await expectRefused(getEndpoint(services, { teamId: user.teamId, endpoint: { id: MISSING_ID } }), "not_found", noEndpoint(MISSING_ID));
    await expectRefused(getEndpoint(services, { teamId: user.teamId, endpoint: { id: "not-an-id" } }), "not_found", noEndpoint("not-an-id"));
  });
});

describe("updateEndpoint", () => {
  test("changes only what it is given, announces it, and clears a setting given as null or blank", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "before", destinationUrl: "http://127.0.0.1:9/a", retryPolicy: { maxAttempts: 2, initialDelayMs: 1_000, maxDelayMs: 1_000 } });
    const heard = changesHeard(services);
    const renamed = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { name: "after", stagingHost: "  Staging.Example.com:8443 " } });
    expect(renamed).toEqual({ ...endpoint, name: "after", stagingHost: "staging.example.com:8443" });
    await waitFor(() => heard.some((change) => change.id === endpoint.id && change.change === "updated"), "the change to be announced");

    const changed = await updateEndpoint(services, {
      teamId: user.teamId,
      endpoint: { slug: endpoint.slug },
      changes: { stagingHost: "", retryPolicy: null, pauseAfterFailures: 5, retentionDays: 7, signRequests: true, keepProxyHeaders: true },
    });
    expect(changed).toMatchObject({
      slug: endpoint.slug,
      destinationUrl: "http://127.0.0.1:9/a",
      stagingHost: null,
      retryPolicy: null,
      pauseAfterFailures: 5,
      retentionDays: 7,
      keptForDays: 7,
      signRequests: true,
      keepProxyHeaders: true,
    });
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toEqual(changed);
    // A null destination removes the first destination, and with it its retry policy and breaker: capture-only.
    const cleared = await updateEndpoint(services, { teamId: user.teamId, endpoint: { slug: endpoint.slug }, changes: { destinationUrl: null } });
    expect(cleared).toEqual({ ...changed, destinationUrl: null, destinationCount: 0, pauseAfterFailures: null });
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toEqual(cleared);
  });

  test("refuses bad changes with the field's message and leaves the endpoint as it was", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "steady" });
    const update = (changes: Record<string, unknown>) => updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes });
    await expectRefused(update({ stagingHost: "https://staging.example.com/path" }), "validation_failed", /staging hostname must be a host name like staging\.example\.com, without a scheme or path/);
    await expectRefused(update({ name: "" }), "validation_failed", "Name is required.");
    await expectRefused(update({ destinationUrl: "not a url" }), "validation_failed", /^destination URL refused: /);
    await expectRefused(update({ signRequests: "yes" }), "validation_failed");
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toEqual(endpoint);
  });

  test("another team's endpoint answers as missing and is left unchanged", async ({ services, user, other }) => {
    const mine = await createEndpoint(services, { teamId: user.teamId, name: "private" });
    await expectRefused(updateEndpoint(services, { teamId: other.teamId, endpoint: { id: mine.id }, changes: { name: "taken" } }), "not_found", noEndpoint(mine.id));
    // The ingress path reads the saved settings first: refused the same way.
    await expectRefused(updateEndpoint(services, { teamId: other.teamId, endpoint: { id: mine.id }, changes: { response: null } }), "not_found", noEndpoint(mine.id));
    expect((await getEndpoint(services, { teamId: user.teamId, endpoint: { id: mine.id } })).name).toBe("private");
  });
});

describe("deleteEndpoint", () => {
  test("removes it at once (its capture URL stops), queues the purge of its events, and announces it", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "doomed" });
    await capture(services, endpoint.slug, "{}");
    const heard = changesHeard(services);
    await deleteEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } });
    await expectRefused(getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } }), "not_found");
    await waitFor(() => heard.some((change) => change.id === endpoint.id && change.change === "deleted"), "the deletion to be announced");
    await expect(capture(services, endpoint.slug, "{}")).rejects.toThrow(/not_found/);
    // The events go in the background: the purge job was queued with the endpoint's delete, and it empties the table.
    await waitFor(async () => (await database.query("select 1 from events where endpoint_id = $1", [endpoint.id])).length === 0, "the purge to run");
    await expectRefused(deleteEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } }), "not_found", noEndpoint(endpoint.id));
  });

  test("another team's endpoint answers as missing and stays", async ({ services, user, other }) => {
    const mine = await createEndpoint(services, { teamId: user.teamId, name: "kept" });
    await expectRefused(deleteEndpoint(services, { teamId: other.teamId, endpoint: { id: mine.id } }), "not_found", noEndpoint(mine.id));
    await expectRefused(deleteEndpoint(services, { teamId: other.teamId, endpoint: { slug: mine.slug } }), "not_found", noSlug(mine.slug));
    expect((await getEndpoint(services, { teamId: user.teamId, endpoint: { id: mine.id } })).id).toBe(mine.id);
  });
});

describe("endpointSecret", () => {
  test("reads the signing secret, and rotating replaces it for good", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "signed" });
    const first = await endpointSecret(services, { teamId: user.teamId, endpoint: { id: endpoint.id } });
    expect(first).toEqual({ id: endpoint.id, slug: endpoint.slug, secret: expect.stringMatching(/^whsec_/) });
    expect(await endpointSecret(services, { teamId: user.teamId, endpoint: { slug: endpoint.slug } })).toEqual(first);
    const rotated = await endpointSecret(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, rotate: true });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(first.secret);
    expect(await endpointSecret(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toEqual(rotated);
  });

  test("another team can neither read nor rotate it", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "secretive" });
    const secret = await endpointSecret(services, { teamId: user.teamId, endpoint: { id: endpoint.id } });
    await expectRefused(endpointSecret(services, { teamId: other.teamId, endpoint: { id: endpoint.id } }), "not_found", noEndpoint(endpoint.id));
    await expectRefused(endpointSecret(services, { teamId: other.teamId, endpoint: { id: endpoint.id }, rotate: true }), "not_found", noEndpoint(endpoint.id));
    expect(await endpointSecret(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toEqual(secret);
  });
});
