import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGNATURE_TOLERANCE_SECONDS } from "@rehook/core";
import { createOrm, createPool, ensureEventPartitions, GroupCommitWriter, type Orm, type Pool } from "@rehook/db";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { captureRequest, createEndpoint, createUser, listTeams, getEvent, IngressRules, listEvents, type CaptureInput, type CaptureOutcome } from "../src/index.js";

// What each stored event records of its capture against a real PostgreSQL: the answer its
// sender was given (status and delay) and why its signature is not valid. The clock the
// signatures are checked by is the context's, set here.

let db: TestDatabase;
let pool: Pool;
let orm: Orm;
let writer: GroupCommitWriter;
let teamId: string;
const NOW_MS = Date.UTC(2026, 10, 24, 12, 0, 0);
const NOW_SECONDS = NOW_MS / 1000;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  await ensureEventPartitions(pool, Date.now());
  writer = new GroupCommitWriter(pool);
  const { id: userId } = await createUser({ orm }, { email: "answers@example.com", password: "a long enough password" });
  // createUser makes the personal team that owns the endpoints here.
  teamId = (await listTeams({ orm }, { userId }))[0]!.id;
});
afterAll(async () => {
  await writer.drain();
  await orm.close(true);
  await pool.end();
  await db.drop();
});

const ctx = () => ({ orm, writer, baseUrl: "https://hooks.example.com", ingressRules: new IngressRules(), addressPolicy: { allowPrivate: true }, retentionDays: 30, now: () => NOW_MS });

function request(slug: string, init: Omit<Partial<CaptureInput>, "body"> & { body?: string } = {}): CaptureInput {
  const { body = "{}", ...rest } = init;
  return { slug, method: "POST", subPath: "", query: "", headers: [["Content-Type", "application/json"]], clientIp: null, ...rest, body: Buffer.from(body) };
}

function eventIdOf(outcome: CaptureOutcome): string {
  if (outcome.kind !== "accepted") throw new Error(`not stored: ${outcome.kind}`);
  return outcome.eventId;
}

const senderResponseOf = async (outcome: CaptureOutcome) => (await getEvent({ orm }, { teamId, eventId: eventIdOf(outcome) })).senderResponse;

describe("what the sender was answered", () => {
  it("records the default 200 at once, and a custom response's status and delay", async () => {
    const plain = await createEndpoint(ctx(), { teamId, name: "Plain" });
    expect(await senderResponseOf(await captureRequest(ctx(), request(plain.slug)))).toEqual({ status: 200, delayMs: 0 });

    const custom = await createEndpoint(ctx(), { teamId, name: "Custom", response: { status: 202, body: "queued", delayMs: 300 } });
    const outcome = await captureRequest(ctx(), request(custom.slug));
    expect(outcome).toMatchObject({ kind: "accepted", answer: { status: 202 }, delayMs: 300 });
    expect(await senderResponseOf(outcome)).toEqual({ status: 202, delayMs: 300 });
  });

  it("records a handshake's 200 and 403 over the custom response, and the custom one for the endpoint's other requests", async () => {
    const endpoint = await createEndpoint(ctx(), {
      teamId,
      name: "Meta",
      handshake: { provider: "meta", token: "the-verify-token" },
      response: { status: 204, delayMs: 50 },
    });
    const check = (token: string) => request(endpoint.slug, { method: "GET", body: "", query: `hub.mode=subscribe&hub.challenge=42&hub.verify_token=${token}` });
    const right = await captureRequest(ctx(), check("the-verify-token"));
    const wrong = await captureRequest(ctx(), check("a-guess"));
    const other = await captureRequest(ctx(), request(endpoint.slug));
    expect([right, wrong, other].map((outcome) => (outcome as { answer?: { status: number } }).answer?.status)).toEqual([200, 403, 204]);
    expect(await senderResponseOf(right)).toEqual({ status: 200, delayMs: 0 });
    expect(await senderResponseOf(wrong)).toEqual({ status: 403, delayMs: 0 });
    expect(await senderResponseOf(other)).toEqual({ status: 204, delayMs: 50 });
  });

  it("still stores the event when a saved custom response was written around the checks (its answer unknown)", async () => {
    const endpoint = await createEndpoint(ctx(), { teamId, name: "Odd", response: { status: 202 } });
    await db.query(`update endpoints set custom_response = '{"status": "soon", "headers": {}, "body": "", "delayMs": 99999999999}' where id = $1`, [endpoint.id]);
    const outcome = await captureRequest(ctx(), request(endpoint.slug));
    expect(outcome.kind).toBe("accepted");
    expect(await senderResponseOf(outcome)).toBeNull();
  });
});

describe("why a signature is invalid", () => {
  const secret = "whsec_answers";
  const stripeHeader = (timestamp: number, body = "{}", withSecret = secret) =>
    `t=${timestamp},v1=${createHmac("sha256", withSecret).update(`${timestamp}.${body}`).digest("hex")}`;

  it("stores stale_timestamp for a correct signature signed too long ago, mismatch for another secret, none when valid", async () => {
    const endpoint = await createEndpoint(ctx(), { teamId, name: "Stripe", verification: { scheme: "stripe", secret } });
    const capture = (header: string) => captureRequest(ctx(), request(endpoint.slug, { headers: [["Content-Type", "application/json"], ["Stripe-Signature", header]] }));
    const stale = eventIdOf(await capture(stripeHeader(NOW_SECONDS - SIGNATURE_TOLERANCE_SECONDS - 60)));
    const forged = eventIdOf(await capture(stripeHeader(NOW_SECONDS, "{}", "whsec_other")));
    const valid = eventIdOf(await capture(stripeHeader(NOW_SECONDS)));
    const unsigned = eventIdOf(await captureRequest(ctx(), request(endpoint.slug)));

    const view = await getEvent({ orm }, { teamId, eventId: stale });
    expect([view.signature, view.signatureReason]).toEqual(["invalid", "stale_timestamp"]);
    const listed = await listEvents({ orm }, { teamId, endpointId: endpoint.id });
    expect(Object.fromEntries(listed.events.map((event) => [event.id, [event.signature, event.signatureReason]]))).toEqual({
      [stale]: ["invalid", "stale_timestamp"],
      [forged]: ["invalid", "mismatch"],
      [valid]: ["valid", null],
      [unsigned]: ["missing", "missing_header"],
    });
  });

  it("gives the reason with a 401 under reject_invalid", async () => {
    const endpoint = await createEndpoint(ctx(), { teamId, name: "Strict", verification: { scheme: "stripe", secret, rejectInvalid: true } });
    const outcome = await captureRequest(ctx(), request(endpoint.slug, { headers: [["Stripe-Signature", stripeHeader(NOW_SECONDS + SIGNATURE_TOLERANCE_SECONDS + 1)]] }));
    expect(outcome).toEqual({ kind: "rejected", signature: "invalid", reason: "stale_timestamp" });
  });
});
