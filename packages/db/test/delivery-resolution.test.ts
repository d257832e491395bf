import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUuidV7Generator, eventResolved, uuidv7 } from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createOrm, isEventResolved, listEventSummaries, type Orm } from "../src/index.js";

// The SQL that flags and filters resolved events mirrors core's eventResolved: both are asked
// the same cases (an event's status and its deliveries' states) and must agree.

let db: TestDatabase;
let orm: Orm;
let teamId: string;
let endpointId: string;
const destinations = [uuidv7(), uuidv7(), uuidv7()];
const makeId = createUuidV7Generator();

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  teamId = await insertUserWithTeam(db, "resolution-rule@example.com");
  endpointId = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'rule', 'rule-sql', 'whsec_x')", [endpointId, teamId]);
  for (const [position, id] of destinations.entries()) {
    await db.query("insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at) values ($1, $2, $3, 'd', 'https://example.com/in', now(), now())", [
      id,
      endpointId,
      position,
    ]);
  }
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

type State = "pending" | "delivered" | "failed" | "failed+resolved";
const CASES: Array<{ status: string; deliveries: State[] }> = [
  { status: "failed", deliveries: ["failed"] },
  { status: "failed", deliveries: ["failed+resolved"] },
  { status: "failed", deliveries: ["delivered", "failed+resolved"] },
  { status: "failed", deliveries: ["failed+resolved", "failed"] },
  { status: "failed", deliveries: ["failed+resolved", "failed+resolved", "pending"] },
  { status: "failed", deliveries: [] },
  { status: "delivered", deliveries: ["delivered"] },
  { status: "pending", deliveries: ["pending", "failed+resolved"] },
  { status: "captured", deliveries: [] },
];

describe("the resolved flag in SQL and in core", () => {
  it("agree on every case", async () => {
    const ids: string[] = [];
    for (const c of CASES) {
      const id = makeId();
      ids.push(id);
      await db.query(
        `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
         values ($1, $2, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', $3)`,
        [id, endpointId, c.status],
      );
      for (const [i, state] of c.deliveries.entries()) {
        await db.query("insert into deliveries (event_id, destination_id, endpoint_id, status, resolved_at) values ($1, $2, $3, $4, $5)", [
          id,
          destinations[i],
          endpointId,
          state === "failed+resolved" ? "failed" : state,
          state === "failed+resolved" ? new Date() : null,
        ]);
      }
    }
    const expected = CASES.map((c) => eventResolved(c.status, c.deliveries.map((state) => ({ status: state === "failed+resolved" ? "failed" : state, resolvedAt: state === "failed+resolved" ? new Date() : null }))));
    expect(expected.filter(Boolean)).toHaveLength(3);
    const one = await Promise.all(ids.map((id) => isEventResolved(orm.em.fork(), id)));
    expect(one).toEqual(expected);
    const listed = await listEventSummaries(orm.em.fork(), teamId, { endpointId }, 50);
    expect(ids.map((id) => listed.find((row) => row.id === id)!.resolved)).toEqual(expected);
    const unresolved = new Set((await listEventSummaries(orm.em.fork(), teamId, { endpointId, unresolved: true }, 50)).map((row) => row.id));
    expect(ids.map((id) => !unresolved.has(id))).toEqual(expected);
  });
});
