import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUuidV7Generator, isUserError, uuidv7, type EventStatus, type ExportedEvent } from "@rehook/core";
import { createOrm, type Orm } from "@rehook/db";
import { createTestDatabase, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { openEventExport } from "../src/index.js";

// The export reads pages of ids by the list's keyset cursor and their bodies by bytes; both
// cuts must lose and repeat nothing.

let db: TestDatabase;
let orm: Orm;
const makeId = createUuidV7Generator();
const MiB = 1024 * 1024;

/** A user's personal team with one endpoint. */
async function team(name: string): Promise<{ teamId: string; endpointId: string }> {
  const userId = uuidv7();
  const endpointId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, $2, 'x')", [userId, `${name}@example.com`]);
  const teamId = await insertPersonalTeam(db, userId);
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $3, 'whsec_x')", [endpointId, teamId, name]);
  return { teamId, endpointId };
}

async function event(endpointId: string, bytes: number, status: EventStatus = "captured"): Promise<string> {
  const id = makeId(Date.now());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
     values ($1, $2, now(), 'POST', '', '', '[]', convert_to(repeat('x', $3::int), 'UTF8'), $3::int, 'stripe', 'invoice.paid', $4)`,
    [id, endpointId, bytes, status],
  );
  return id;
}

async function all(events: AsyncGenerator<ExportedEvent>): Promise<ExportedEvent[]> {
  const found: ExportedEvent[] = [];
  for await (const exported of events) found.push(exported);
  return found;
}

let owner: { teamId: string; endpointId: string };
const ids: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  owner = await team("owner");
  // Bodies of 5 MiB: a read of 8 MiB holds two, so reads end inside pages of four.
  for (let n = 0; n < 9; n += 1) ids.push(await event(owner.endpointId, n % 3 === 0 ? 10 : 5 * MiB, n === 4 ? "failed" : "captured"));
  const other = await team("other");
  await event(other.endpointId, 10);
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

describe("openEventExport", () => {
  it("exports every event once, newest first, whole, across pages and byte-bounded reads", async () => {
    const exported = await all(openEventExport({ orm }, { teamId: owner.teamId, filter: {}, pageEvents: 4 }));
    expect(exported.map((e) => e.id)).toEqual([...ids].reverse());
    expect(exported.filter((e) => e.body.byteLength === 5 * MiB)).toHaveLength(6);
    expect(exported.every((e) => e.endpointSlug === "owner")).toBe(true);
  });

  it("applies the list's filters and only the team's events", async () => {
    const failed = await all(openEventExport({ orm }, { teamId: owner.teamId, filter: { status: "failed" } }));
    expect(failed.map((e) => e.id)).toEqual([ids[4]]);
    const none = await all(openEventExport({ orm }, { teamId: owner.teamId, filter: { endpointId: uuidv7() } }));
    expect(none).toEqual([]);
  });

  it("refuses a bad filter before reading anything", () => {
    let thrown: unknown;
    try {
      openEventExport({ orm }, { teamId: owner.teamId, filter: { endpointId: "nope" } });
    } catch (error) {
      thrown = error;
    }
    expect(isUserError(thrown)).toBe(true);
  });
});
