import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createPool, deleteAgedAuditEntries, type Pool } from "../src/index.js";

// Audit entries age out after AUDIT_RETENTION_DAYS, in bounded batches; younger ones stay,
// and no statement can change one that stays.

let db: TestDatabase;
let pool: Pool;
let teamId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  teamId = await insertUserWithTeam(db, "audit@example.com");
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

/** `count` entries of the team written `daysAgo` days before the database's now. */
async function entriesAged(daysAgo: number, count: number): Promise<void> {
  const ids = Array.from({ length: count }, () => uuidv7());
  await db.query(
    `insert into audit_log (id, at, team_id, actor_type, action) select t.id, now() - make_interval(days => $3), $2, 'system', 'team.rename' from unnest($1::uuid[]) as t(id)`,
    [ids, teamId, daysAgo],
  );
}

const ages = async () => (await db.query<{ days: number }>("select extract(day from now() - at)::int as days from audit_log order by at")).map((row) => row.days);

describe("audit retention", () => {
  it("deletes entries older than the retention in batches, and keeps the younger ones", async () => {
    await entriesAged(400, 5);
    await entriesAged(366, 2);
    await entriesAged(364, 3);
    expect(await deleteAgedAuditEntries(pool, 365, 4)).toBe(4);
    expect(await deleteAgedAuditEntries(pool, 365, 4)).toBe(3);
    expect(await deleteAgedAuditEntries(pool, 365, 4)).toBe(0);
    expect(await ages()).toEqual([364, 364, 364]);
  });

  it("refuses to change an entry, whoever asks", async () => {
    await expect(db.query("update audit_log set action = 'endpoint.delete'")).rejects.toThrow(/never changed/);
    expect(new Set((await db.query<{ action: string }>("select action from audit_log")).map((row) => row.action))).toEqual(new Set(["team.rename"]));
  });
});
