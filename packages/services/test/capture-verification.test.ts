import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrm, createPool, ensureEventPartitions, GroupCommitWriter, type Orm, type Pool } from "@rehook/db";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { captureRequest, createCapturePool, createEndpoint, createUser, listTeams, IngressRules, updateEndpoint, type CaptureInput, type CapturePool } from "../src/index.js";

// The capture path's signature checks against a real PostgreSQL, without the event bus: a
// rule learnt by one instance goes stale when another changes it, and the capture statement's
// version check is then what keeps every stored row labelled under the current rule.

let db: TestDatabase;
let pool: Pool;
let orm: Orm;
let writer: GroupCommitWriter;
let teamId: string;
const baseUrl = "https://hooks.example.com";
const secret = "It's a Secret to Everybody";

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  await ensureEventPartitions(pool, Date.now());
  writer = new GroupCommitWriter(pool);
  const { id: userId } = await createUser({ orm }, { email: "verify@example.com", password: "a long enough password" });
  // createUser makes the personal team that owns the endpoints here.
  teamId = (await listTeams({ orm }, { userId }))[0]!.id;
});
afterAll(async () => {
  await writer.drain();
  await orm.close(true);
  await pool.end();
  await db.drop();
});

const ctxFor = (ingressRules?: IngressRules) => ({ orm, writer, baseUrl, ingressRules, addressPolicy: { allowPrivate: true }, retentionDays: 30 });

function request(slug: string, body: string, signWith?: string): CaptureInput {
  const headers: Array<[string, string]> = [["Content-Type", "application/json"]];
  if (signWith) headers.push(["X-Hub-Signature-256", `sha256=${createHmac("sha256", signWith).update(body).digest("hex")}`]);
  return { slug, method: "POST", subPath: "", query: "", headers, body: Buffer.from(body), clientIp: null };
}

async function storedSignature(eventId: string): Promise<string | null> {
  const rows = await db.query<{ signature: string | null }>("select signature from events where id = $1", [eventId]);
  return rows[0]!.signature;
}

describe("signature checks at capture", () => {
  it("relabels under the current rule when the rule a capture was checked under is out of date", async () => {
    const rules = new IngressRules();
    const ctx = ctxFor(rules);
    const endpoint = await createEndpoint(ctx, { teamId, name: "Stale" });
    // Learnt: no rule.
    const first = await captureRequest(ctx, request(endpoint.slug, "{}", secret));
    expect(first.kind).toBe("accepted");
    expect(await storedSignature((first as { eventId: string }).eventId)).toBeNull();
    expect(rules.get(endpoint.slug)?.verify).toBeNull();

    // Another instance turns verification on; this one hears nothing (no bus here).
    await updateEndpoint(ctx, { teamId, endpoint: { id: endpoint.id }, changes: { verification: { scheme: "github", secret } } });
    const signed = await captureRequest(ctx, request(endpoint.slug, '{"a":1}', secret));
    const forged = await captureRequest(ctx, request(endpoint.slug, '{"a":1}', "not the secret"));
    expect(await storedSignature((signed as { eventId: string }).eventId)).toBe("valid");
    expect(await storedSignature((forged as { eventId: string }).eventId)).toBe("invalid");
    expect(rules.get(endpoint.slug)?.version).toBe(1);

    // And then rejects: the first capture after the change is checked again before anything is stored.
    await updateEndpoint(ctx, { teamId, endpoint: { id: endpoint.id }, changes: { verification: { scheme: "github", rejectInvalid: true } } });
    const before = await db.query("select count(*)::int as n from events");
    expect(await captureRequest(ctx, request(endpoint.slug, "{}", "not the secret"))).toEqual({ kind: "rejected", signature: "invalid", reason: "mismatch" });
    expect(await captureRequest(ctx, request(endpoint.slug, "{}"))).toEqual({ kind: "rejected", signature: "missing", reason: "missing_header" });
    expect(await db.query("select count(*)::int as n from events")).toEqual(before);
  });

  it("refuses an unsigned large body before sender detection: a flood to a signing endpoint spends no worker time", async () => {
    const real = createCapturePool();
    let senderTasks = 0;
    const capturePool: CapturePool = {
      route: (task) => real.route(task),
      sender: (task) => {
        senderTasks += 1;
        return real.sender(task);
      },
      close: () => real.close(),
      get threadCount() {
        return real.threadCount;
      },
    };
    try {
      const ctx = { ...ctxFor(new IngressRules()), capturePool };
      const endpoint = await createEndpoint(ctx, { teamId, name: "Signed only", verification: { scheme: "github", secret, rejectInvalid: true } });
      // Larger than what the main thread scans itself (INLINE_BODY_BYTES).
      const large = JSON.stringify({ pad: "x".repeat(200 * 1024) });
      // A small one first: the rule is learnt (a capture before that cannot know to refuse).
      expect((await captureRequest(ctx, request(endpoint.slug, "{}"))).kind).toBe("rejected");
      expect((await captureRequest(ctx, request(endpoint.slug, large))).kind).toBe("rejected");
      expect((await captureRequest(ctx, request(endpoint.slug, large, "not the secret"))).kind).toBe("rejected");
      expect(senderTasks).toBe(0);
      expect(real.threadCount).toBe(0);
      expect((await captureRequest(ctx, request(endpoint.slug, large, secret))).kind).toBe("accepted");
      expect(senderTasks).toBe(1);
    } finally {
      await capturePool.close();
    }
  });

  it("checks without a rule cache too (learnt per capture)", async () => {
    const ctx = ctxFor();
    const endpoint = await createEndpoint(ctx, { teamId, name: "No cache", verification: { scheme: "github", secret } });
    const signed = await captureRequest(ctx, request(endpoint.slug, "{}", secret));
    expect(await storedSignature((signed as { eventId: string }).eventId)).toBe("valid");
  });

  it("learns a rejecting rule again once it is older than its age limit", async () => {
    let now = 0;
    const rules = new IngressRules({ maxAgeMs: 1_000, now: () => now });
    const ctx = ctxFor(rules);
    const endpoint = await createEndpoint(ctx, { teamId, name: "Aging", verification: { scheme: "github", secret, rejectInvalid: true } });
    expect((await captureRequest(ctx, request(endpoint.slug, "{}"))).kind).toBe("rejected");
    // Changed elsewhere, unheard: still rejected while the rule is young, accepted once it is relearnt.
    await updateEndpoint(ctx, { teamId, endpoint: { id: endpoint.id }, changes: { verification: { scheme: "github", rejectInvalid: false } } });
    expect((await captureRequest(ctx, request(endpoint.slug, "{}"))).kind).toBe("rejected");
    now += 1_001;
    const accepted = await captureRequest(ctx, request(endpoint.slug, "{}"));
    expect(accepted.kind).toBe("accepted");
    expect(await storedSignature((accepted as { eventId: string }).eventId)).toBe("missing");
  });

  it("forgets the oldest endpoint when full, and an endpoint the bus says changed", async () => {
    const rules = new IngressRules({ maxEntries: 2 });
    const ctx = ctxFor(rules);
    const endpoints = await Promise.all(["One", "Two", "Three"].map((name) => createEndpoint(ctx, { teamId, name })));
    for (const endpoint of endpoints) await captureRequest(ctx, request(endpoint.slug, "{}"));
    expect(rules.size).toBe(2);
    expect(rules.get(endpoints[0]!.slug)).toBeUndefined();
    rules.forgetEndpoint(endpoints[2]!.id);
    expect(rules.get(endpoints[2]!.slug)).toBeUndefined();
    expect(rules.get(endpoints[1]!.slug)).toBeDefined();
  });
});
