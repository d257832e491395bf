import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7, type HeaderList } from "@rehook/core";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createPool, GroupCommitWriter, type CapturedRequest, type Pool } from "../src/index.js";

let db: TestDatabase;
let pool: Pool;
const slug = "poison-aaaaaaaa";

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  const userId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'poison@example.com', 'x')", [userId]);
  await db.query("insert into endpoints (id, user_id, name, slug, secret) values ($1, $2, $3, $3, 'whsec_x')", [uuidv7(), userId, slug]);
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

function request(fields: Partial<CapturedRequest> = {}): CapturedRequest {
  return {
    id: uuidv7(),
    slug,
    receivedAt: new Date(),
    method: "POST",
    path: "",
    query: "",
    headers: [["Content-Type", "application/json"]],
    body: Buffer.from([0, 0xff, 0xd8]), // the body is bytes, kept exactly: only text is sanitised
    contentType: "application/json",
    clientIp: "127.0.0.1",
    source: "unknown",
    eventType: "ok",
    ...fields,
  };
}

interface Row {
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
  content_type: string | null;
  source: string;
  event_type: string;
}

describe("group commit writer with text PostgreSQL refuses", () => {
  it("stores every text field with NUL and lone surrogates replaced, in one batch with an ordinary neighbour", async () => {
    const writer = new GroupCommitWriter(pool);
    const poisoned = request({
      method: "PO\u0000ST",
      path: "/a\ud800",
      query: "q=\udc00",
      headers: [["X-Nul", "a\u0000b"], ["X-Surrogate\ud83d", "\ud83d"], ["X-Emoji", "\u{1F600}"]],
      contentType: "text/plain\u0000",
      clientIp: "\ud800",
      source: "src\u0000",
      eventType: "type\udbff",
    });
    const neighbour = request();
    const results = await Promise.all([writer.write(poisoned), writer.write(neighbour)]);
    expect(results.map((result) => result.kind)).toEqual(["stored", "stored"]);
    const [row] = await db.query<Row>("select * from events where id = $1", [poisoned.id]);
    expect(row).toMatchObject({
      method: "PO\uFFFDST",
      path: "/a\uFFFD",
      query: "q=\uFFFD",
      headers: [["X-Nul", "a\uFFFDb"], ["X-Surrogate\uFFFD", "\uFFFD"], ["X-Emoji", "\u{1F600}"]],
      content_type: "text/plain\uFFFD",
      source: "src\uFFFD",
      event_type: "type\uFFFD",
    });
    expect(row!.body.equals(poisoned.body)).toBe(true);
    const [other] = await db.query<Row>("select * from events where id = $1", [neighbour.id]);
    expect(other).toMatchObject({ method: "POST", event_type: "ok", headers: [["Content-Type", "application/json"]] });
    // Both rows went in the same statement: nothing was retried one by one.
    const transactions = await db.query<{ n: number }>("select count(distinct xmin::text)::int as n from events where id = any($1::uuid[])", [[poisoned.id, neighbour.id]]);
    expect(transactions[0]!.n).toBe(1);
  });
});
