import { describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { insertPersonalTeam } from "../../../tooling/vitest/src/postgres.js";
import { findOwnedEvent, listEventSummaries, ownedEventDeliveries } from "../src/index.js";
import { unmigratedDatabase } from "./unmigrated-database.js";

// Resolution recomputed on upgrade (the delivery_history and legacy_delivery_resolution
// migrations): a failed delivery is resolved only by a later delivered replay to its own
// destination. Fan-out data written as the main of before the upgrade writes it: an event
// whose only delivered replay went to a custom URL (resolved by the old rule, "any delivered
// replay") reads unresolved after the upgrade; one replayed to its failed destination reads
// resolved, and so does an event forwarded before routing, replayed to its destination.

const BEFORE = "Migration20261208040000_filters_cut_short";

let teamId: string;
const makeId = createUuidV7Generator();

const t = unmigratedDatabase();

const at = (offsetMs: number) => new Date(Math.floor(Date.now() / 1000) * 1000 + offsetMs);

/** The old rule ("resolved by replay": any delivered replay of a failed event), as the main of before computed it. */
const OLD_RULE = `select e.id from events e where e.status = 'failed' and exists (select 1 from replay_attempts r where r.event_id = e.id and r.status = 'delivered')`;

async function seed() {
  const userId = uuidv7();
  await t.db.query("insert into users (id, email, password_hash) values ($1, 'upgrade@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(t.db, userId);
  const endpointId = uuidv7();
  await t.db.query("insert into endpoints (id, team_id, name, slug, secret, created_at) values ($1, $2, 'shop', 'shop-upgrade', 'whsec_x', now() - interval '1 day')", [endpointId, teamId]);
  const destinations = {
    billing: { id: uuidv7(), url: "https://billing.example.com/in" },
    ci: { id: uuidv7(), url: "https://ci.example.com/hooks" },
    broken: { id: uuidv7(), url: "https://broken.example.com/hook" },
  };
  for (const [position, [name, destination]] of Object.entries(destinations).entries()) {
    await t.db.query("insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at) values ($1, $2, $3, $4, $5, now() - interval '1 day', now())", [
      destination.id,
      endpointId,
      position,
      name,
      destination.url,
    ]);
  }
  const failedAt = at(-60_000);
  const event = async (routed: boolean) => {
    const id = makeId();
    await t.db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url, completed_at, error)
       values ($1, $2, now(), 'POST', '/github', '', '[]', '\\x7b7d', 2, 'github', 'push', 'failed', $3, $4, 'destination answered 500')`,
      [id, endpointId, destinations.billing.url, failedAt],
    );
    if (!routed) {
      // Before routing: attempts with no destination, and no delivery rows.
      await t.db.query("insert into delivery_attempts (event_id, attempt, started_at, latency_ms, response_status, outcome) values ($1, 1, $2, 5, 500, 'failed')", [id, failedAt]);
    }
    return id;
  };
  const delivery = async (eventId: string, destinationId: string, status: "delivered" | "failed") => {
    await t.db.query("insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, completed_at) values ($1, $2, $3, $4, 1, $5)", [
      eventId,
      destinationId,
      endpointId,
      status,
      failedAt,
    ]);
    await t.db.query(
      "insert into delivery_attempts (event_id, destination_id, attempt, started_at, latency_ms, response_status, outcome) values ($1, $2, 1, $3, 5, $4, $5)",
      [eventId, destinationId, failedAt, status === "delivered" ? 200 : 500, status],
    );
  };
  const replay = async (eventId: string, environment: string, url: string, replayedAt: Date) => {
    const id = uuidv7();
    await t.db.query(
      `insert into replay_attempts (id, event_id, user_id, environment, destination_url, status, response_status, replayed_at)
       values ($1, $2, $3, $4, $5, 'delivered', 200, $6)`,
      [id, eventId, userId, environment, url, replayedAt],
    );
    return id;
  };

  // Billing delivered, Broken failed; then a delivered replay to a scratch URL.
  const scratch = await event(true);
  await delivery(scratch, destinations.billing.id, "delivered");
  await delivery(scratch, destinations.broken.id, "failed");
  await replay(scratch, "custom", "https://scratch.example.net/x", at(-30_000));
  // "Original" meant the first destination: the replay went to Billing, which delivered it; Broken, which failed, never got it.
  const elsewhere = await event(true);
  await delivery(elsewhere, destinations.billing.id, "delivered");
  await delivery(elsewhere, destinations.broken.id, "failed");
  await replay(elsewhere, "original", `${destinations.billing.url}/github`, at(-20_000));
  // CI delivered, Broken failed; then a delivered replay to Broken's URL (its destination, named by the URL).
  const replayedToBroken = await event(true);
  await delivery(replayedToBroken, destinations.ci.id, "delivered");
  await delivery(replayedToBroken, destinations.broken.id, "failed");
  const brokenReplay = await replay(replayedToBroken, "original", `${destinations.broken.url}/github`, at(-10_000));
  // Forwarded before routing (to the endpoint's one destination, Billing's URL), failed, replayed there.
  const legacy = await event(false);
  const legacyReplay = await replay(legacy, "original", `${destinations.billing.url}/github`, at(-5_000));
  // Forwarded before routing, failed, never replayed.
  const legacyUntouched = await event(false);
  return { destinations, scratch, elsewhere, replayedToBroken, brokenReplay, legacy, legacyReplay, legacyUntouched };
}

describe("upgrading resolution to deliveries", () => {
  let seeded: Awaited<ReturnType<typeof seed>>;

  it("resolves a failed delivery only by a delivered replay to its own destination", async () => {
    await t.orm.getMigrator().up({ to: BEFORE });
    seeded = await seed();
    const { scratch, elsewhere, replayedToBroken, legacy, legacyUntouched, destinations } = seeded;
    // The old rule called every replayed event resolved.
    expect((await t.db.query<{ id: string }>(OLD_RULE)).map((row) => row.id).sort()).toEqual([scratch, elsewhere, replayedToBroken, legacy].sort());

    await t.orm.getMigrator().up();

    const em = t.orm.em.fork();
    const resolved = async (id: string) => (await findOwnedEvent(em, teamId, id, 16))!.resolved;
    // The scratch URL and Billing are not Broken: those events stay unresolved.
    expect(await resolved(scratch)).toBe(false);
    expect(await resolved(elsewhere)).toBe(false);
    expect(await resolved(replayedToBroken)).toBe(true);
    expect(await resolved(legacy)).toBe(true);
    expect(await resolved(legacyUntouched)).toBe(false);

    const broken = (await ownedEventDeliveries(em, teamId, replayedToBroken)).find((d) => d.destinationId === destinations.broken.id)!;
    expect(broken.resolution).toEqual({ at: expect.any(Date), replayId: seeded.brokenReplay, userId: null, userEmail: null, note: null });
    // The legacy event's delivery now has a row of its own, to the first destination, resolved by its replay.
    expect((await ownedEventDeliveries(em, teamId, legacy)).map((d) => [d.destinationId, d.status, d.resolution?.replayId])).toEqual([
      [destinations.billing.id, "failed", seeded.legacyReplay],
    ]);
    expect((await ownedEventDeliveries(em, teamId, legacyUntouched)).map((d) => [d.destinationId, d.status, d.resolution])).toEqual([[destinations.billing.id, "failed", null]]);
  });

  it("the list's 'hide resolved' follows the new rule", async () => {
    const { scratch, elsewhere, replayedToBroken, legacy, legacyUntouched } = seeded;
    const shown = await listEventSummaries(t.orm.em.fork(), teamId, { status: "failed", unresolved: true }, 50);
    expect(shown.map((row) => row.id).sort()).toEqual([scratch, elsewhere, legacyUntouched].sort());
    const all = await listEventSummaries(t.orm.em.fork(), teamId, { status: "failed" }, 50);
    expect(all.filter((row) => row.resolved).map((row) => row.id).sort()).toEqual([replayedToBroken, legacy].sort());
  });
});
