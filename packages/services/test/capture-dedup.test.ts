import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { createPool, GroupCommitWriter, type Pool } from "@rehook/db";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { captureRequest, createEndpoint, getEvent, IngressRules, listEvents, updateEndpoint, type CaptureInput, type Services } from "@rehook/services";
import { capture, ScriptedDestination, test } from "./support.js";

// Deduplication at ingress on the running service graph: a repeat inside the window is
// stored and acknowledged as a duplicate of the first event and never forwarded; the
// database decides which event came first, also between two writers (two instances).

let destination: ScriptedDestination;
beforeAll(async () => {
  destination = await new ScriptedDestination().start();
});
afterAll(() => destination.close());

const github = (delivery: string): Array<[string, string]> => [
  ["Content-Type", "application/json"],
  ["X-GitHub-Event", "push"],
  ["X-GitHub-Delivery", delivery],
];

interface Row extends Record<string, unknown> {
  status: string;
  duplicate_of: string | null;
  deliveries: number;
}
type Query = <R extends Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;
const row = async (db: { query: Query }, id: string) =>
  (
    await db.query<Row>("select status, duplicate_of, (select count(*)::int from deliveries d where d.event_id = e.id) as deliveries from events e where id = $1", [id])
  )[0]!;

function request(slug: string, headers: Array<[string, string]>, body = "{}"): CaptureInput {
  return { slug, method: "POST", subPath: "", query: "", headers, body: Buffer.from(body), clientIp: null };
}

describe("deduplication at ingress", () => {
  test("stores a repeat of the provider's delivery id as a duplicate of the first, and forwards only the first", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, {
      teamId: user.teamId,
      name: "Deduped",
      destinationUrl: destination.url(),
      dedup: { key: "auto", window_s: 3600 },
    });
    const before = destination.sink.received.length;
    const first = await capture(services, endpoint.slug, '{"n":1}', github("d-1"));
    const repeat = await capture(services, endpoint.slug, '{"n":1}', github("d-1"));
    const other = await capture(services, endpoint.slug, '{"n":2}', github("d-2"));

    expect(await row(database, repeat)).toMatchObject({ status: "duplicate", duplicate_of: first, deliveries: 0 });
    await waitFor(async () => (await row(database, first)).status === "delivered" && (await row(database, other)).status === "delivered", "the first and the other to deliver");
    expect((await row(database, first)).duplicate_of).toBeNull();
    // Two deliveries (first and other), never the repeat.
    await waitFor(() => destination.sink.received.length - before === 2, "two deliveries");
    expect((await row(database, repeat)).status).toBe("duplicate");

    const view = await getEvent(services, { teamId: user.teamId, eventId: repeat });
    expect(view).toMatchObject({ status: "duplicate", duplicateOf: first });
    const page = await listEvents(services, { teamId: user.teamId, endpointId: endpoint.id, status: "duplicate", withTotal: true });
    expect(page.events.map((event) => event.id)).toEqual([repeat]);
    expect(page.total).toEqual({ value: 1, capped: false });
    expect(await eventCountMismatches(database)).toEqual([]);
  });

  test("takes the key over once the window has passed, and leaves requests without a key alone", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Windowed", dedup: { key: { json: "data.id" }, window_s: 60 } });
    const first = await capture(services, endpoint.slug, '{"data":{"id":"x"}}');
    expect((await row(database, await capture(services, endpoint.slug, '{"data":{"id":"x"}}'))).duplicate_of).toBe(first);
    // No data.id: no key, never a duplicate.
    const keyless = [await capture(services, endpoint.slug, '{"data":{}}'), await capture(services, endpoint.slug, '{"data":{}}')];
    for (const id of keyless) expect(await row(database, id)).toMatchObject({ status: "captured", duplicate_of: null });

    // The window passes (moved in the database rather than waited for).
    await database.query("update dedup_keys set expires_at = now() - interval '1 second' where endpoint_id = $1", [endpoint.id]);
    const after = await capture(services, endpoint.slug, '{"data":{"id":"x"}}');
    expect(await row(database, after)).toMatchObject({ status: "captured", duplicate_of: null });
    expect((await row(database, await capture(services, endpoint.slug, '{"data":{"id":"x"}}'))).duplicate_of).toBe(after);
  });

  test("finds one first event among concurrent repeats, in one batch and across two writers", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Raced", dedup: { key: "body", window_s: 600 } });
    // A second instance: its own pool, writer and rule cache on the same database.
    const pool: Pool = createPool({ databaseUrl: database.url, max: 2 });
    const writer = new GroupCommitWriter(pool);
    const elsewhere = { ...services, writer, ingressRules: new IngressRules(), forwarder: undefined };
    try {
      const sends = Array.from({ length: 40 }, (_, i) => captureRequest(i % 2 ? elsewhere : services, request(endpoint.slug, [["Content-Type", "application/json"]], '{"same":true}')));
      const outcomes = await Promise.all(sends);
      const ids = outcomes.map((outcome) => (outcome.kind === "accepted" ? outcome.eventId : "not accepted"));
      const rows = await database.query<{ id: string; status: string; duplicate_of: string | null }>(
        "select id, status, duplicate_of from events where id = any($1::uuid[])",
        [ids],
      );
      expect(rows).toHaveLength(40);
      const originals = rows.filter((r) => r.status === "captured");
      expect(originals).toHaveLength(1);
      expect(new Set(rows.filter((r) => r.status === "duplicate").map((r) => r.duplicate_of))).toEqual(new Set([originals[0]!.id]));
      // The earliest id is the first event whenever both came in one statement; across two
      // statements the one that committed first wins, so only its being one of them is certain.
      expect(ids).toContain(originals[0]!.id);
    } finally {
      await writer.drain();
      await pool.end();
    }
  });

  test("applies a rule turned on elsewhere at the next capture, however stale this instance's rule cache", async ({ services, user, database }) => {
    const rules = new IngressRules();
    const ctx = { ...services, ingressRules: rules, forwarder: undefined };
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Late rule" });
    const plain = await captureRequest(ctx, request(endpoint.slug, [["X-Request-Id", "r-1"]]));
    expect(rules.get(endpoint.slug)?.dedup).toBeNull();

    // Changed without this cache hearing of it: the capture statement's version check sends the next capture round again.
    await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { dedup: { key: { header: "X-Request-Id" }, window_s: 30 } } });
    const first = await captureRequest(ctx, request(endpoint.slug, [["X-Request-Id", "r-1"]]));
    const repeat = await captureRequest(ctx, request(endpoint.slug, [["x-request-id", "r-1"]]));
    expect(plain).toMatchObject({ kind: "accepted", status: "captured" });
    expect(first).toMatchObject({ kind: "accepted", status: "captured" });
    expect(repeat).toMatchObject({ kind: "accepted", status: "duplicate", duplicateOf: (first as { eventId: string }).eventId });
    expect(rules.get(endpoint.slug)?.dedup).toEqual({ key: { header: "X-Request-Id" }, window_s: 30 });

    // Turned off: repeats are events of their own again.
    await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { dedup: null } });
    const again = await captureRequest(ctx, request(endpoint.slug, [["X-Request-Id", "r-1"]]));
    expect(again).toMatchObject({ kind: "accepted", status: "captured" });
    expect((await row(database, (again as { eventId: string }).eventId)).duplicate_of).toBeNull();
  });

  test("once signatures are checked, a signed delivery takes over a key an unchecked event holds, and unsigned ones never claim one", async ({ services, user, database }) => {
    const secret = "the sender's secret";
    const signed = (delivery: string): Array<[string, string]> => [...github(delivery), ["X-Hub-Signature-256", `sha256=${createHmac("sha256", secret).update("{}").digest("hex")}`]];
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Checked later", dedup: { key: "auto", window_s: 3600 } });
    // Before the check is on, any request claims its key.
    const unchecked = await capture(services, endpoint.slug, "{}", github("d-1"));
    await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { verification: { scheme: "github", secret } } });

    const genuine = await capture(services, endpoint.slug, "{}", signed("d-1"));
    expect(await row(database, genuine)).toMatchObject({ status: "captured", duplicate_of: null });
    expect((await row(database, await capture(services, endpoint.slug, "{}", github("d-1")))).duplicate_of).toBe(genuine);
    expect((await row(database, await capture(services, endpoint.slug, "{}", signed("d-1")))).duplicate_of).toBe(genuine);
    expect((await row(database, unchecked)).duplicate_of).toBeNull();

    // Unsigned requests with a key no valid event holds are events of their own, however many.
    const unsigned = [await capture(services, endpoint.slug, "{}", github("d-2")), await capture(services, endpoint.slug, "{}", github("d-2"))];
    for (const id of unsigned) expect(await row(database, id)).toMatchObject({ status: "captured", duplicate_of: null });
    expect(await database.query("select verified from dedup_keys where endpoint_id = $1", [endpoint.id])).toEqual([{ verified: true }]);
  });

  test("never makes a signed delivery the duplicate of unsigned ones sent with it, in one batch or across two writers", async ({ services, user, database }) => {
    const secret = "raced secret";
    const endpoint = await createEndpoint(services, {
      teamId: user.teamId,
      name: "Raced forgeries",
      verification: { scheme: "github", secret },
      dedup: { key: { header: "X-GitHub-Delivery" }, window_s: 600 },
    });
    const pool: Pool = createPool({ databaseUrl: database.url, max: 2 });
    const writer = new GroupCommitWriter(pool);
    const elsewhere = { ...services, writer, ingressRules: new IngressRules(), forwarder: undefined };
    try {
      const forgery = (i: number) => request(endpoint.slug, github("raced"), `{"forged":${i}}`);
      const genuineBody = '{"genuine":true}';
      const genuine = request(endpoint.slug, [...github("raced"), ["X-Hub-Signature-256", `sha256=${createHmac("sha256", secret).update(genuineBody).digest("hex")}`]], genuineBody);
      // The signed delivery in the middle of 40 forgeries, half of them on the other instance.
      const sends = Array.from({ length: 40 }, (_, i) => captureRequest(i % 2 ? elsewhere : services, forgery(i)));
      sends.splice(20, 0, captureRequest(services, genuine));
      const ids = (await Promise.all(sends)).map((outcome) => (outcome.kind === "accepted" ? outcome.eventId : "not accepted"));
      const genuineId = ids[20]!;
      const rows = await database.query<{ id: string; status: string; duplicate_of: string | null }>("select id, status, duplicate_of from events where id = any($1::uuid[])", [ids]);
      expect(rows).toHaveLength(41);
      expect(rows.find((r) => r.id === genuineId)).toMatchObject({ status: "captured", duplicate_of: null });
      // A forgery is a duplicate of the signed delivery or of nothing.
      expect(new Set(rows.flatMap((r) => (r.duplicate_of ? [r.duplicate_of] : [])))).toEqual(new Set([genuineId]));
    } finally {
      await writer.drain();
      await pool.end();
    }
  });

  test("refuses a dedup rule it cannot apply, naming the field", async ({ services, user }) => {
    const refused = (dedup: unknown) => createEndpoint(services, { teamId: user.teamId, name: "Bad rule", dedup: dedup as never }).then(() => "accepted", (error: Error) => error.message);
    expect(await refused({ key: "auto", window_s: 0 })).toMatch(/window_s/);
    expect(await refused({ key: "auto", window_s: 604_801 })).toMatch(/window_s/);
    expect(await refused({ key: { header: "bad header" }, window_s: 60 })).toMatch(/header/);
    expect(await refused({ key: "sometimes", window_s: 60 })).toMatch(/key/);
  });
});
