import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { insertPersonalTeam } from "../../../tooling/vitest/src/postgres.js";
import { GroupCommitWriter, type CapturedRequest } from "../src/index.js";
import { unmigratedDatabase } from "./unmigrated-database.js";

// A database whose dedup keys were claimed before only verified events could claim them: on
// an endpoint that checks signatures, a key an unsigned request holds stops counting at the
// upgrade (the sender's signed delivery takes it over), a key a valid event holds still makes
// repeats duplicates, and the migration goes back down as it came.

const BEFORE = "Migration20261207000000_fast_path_lease";
const UPGRADE = "Migration20261208020000_verified_dedup_keys";
const SLUG = "observed-aaaaaaaa";


const t = unmigratedDatabase({ ormPoolSize: 2, poolMax: 2 });

const keyOf = (value: string) => createHash("sha256").update(value).digest("hex");

async function insertEvent(endpointId: string, signature: string | null): Promise<string> {
  const id = uuidv7();
  await t.db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, signature)
     values ($1, $2, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'github', 'push', 'captured', $3)`,
    [id, endpointId, signature],
  );
  return id;
}

const claim = (endpointId: string, key: string, eventId: string) =>
  t.db.query("insert into dedup_keys (endpoint_id, key_hash, first_event_id, expires_at) values ($1, decode($2, 'hex'), $3, now() + interval '1 hour')", [endpointId, key, eventId]);

/** A capture checked under the endpoint's rule (version 1), with what the check found. */
const checked = (key: string, signature: "valid" | "missing"): CapturedRequest => ({
  id: uuidv7(),
  slug: SLUG,
  receivedAt: new Date(),
  method: "POST",
  path: "",
  query: "",
  headers: [["Content-Type", "application/json"]],
  body: Buffer.from("{}"),
  contentType: "application/json",
  clientIp: null,
  source: "github",
  eventType: "push",
  verificationVersion: 1,
  signature,
  signatureReason: signature === "valid" ? null : "missing_header",
  dedupKey: key,
  matched: [],
});

describe("upgrading dedup keys to verified ones", () => {
  it("lets a valid event take over a key an unsigned request held before the upgrade, and keeps a valid event's", async () => {
    await t.orm.getMigrator().up({ to: BEFORE });
    const userId = uuidv7();
    await t.db.query("insert into users (id, email, password_hash) values ($1, 'keys@example.com', 'x')", [userId]);
    const teamId = await insertPersonalTeam(t.db, userId);
    const endpointId = uuidv7();
    await t.db.query(
      `insert into endpoints (id, team_id, name, slug, secret, verification, verification_version, dedup)
       values ($1, $2, 'observed', $3, 'whsec_x', '{"scheme":"github","secret":"s","rejectInvalid":false}', 1, '{"key":{"header":"X-GitHub-Delivery"},"window_s":3600}')`,
      [endpointId, teamId, SLUG],
    );
    const forgedKey = keyOf("claimed by an unsigned request");
    const genuineKey = keyOf("claimed by a signed delivery");
    const forgery = await insertEvent(endpointId, "missing");
    const genuine = await insertEvent(endpointId, "valid");
    await claim(endpointId, forgedKey, forgery);
    await claim(endpointId, genuineKey, genuine);

    await t.orm.getMigrator().up({ to: UPGRADE });
    const keys = await t.db.query<{ key: string; verified: boolean }>("select encode(key_hash, 'hex') as key, verified from dedup_keys order by verified");
    expect(keys).toEqual([
      { key: forgedKey, verified: false },
      { key: genuineKey, verified: true },
    ]);

    // The writer's statement is today's: it needs every later migration's columns too.
    await t.orm.getMigrator().up();
    const writer = new GroupCommitWriter(t.pool);
    const signed = checked(forgedKey, "valid");
    const taken = await writer.write(signed);
    expect(taken).toMatchObject({ kind: "stored", status: "captured" });
    expect(taken).not.toHaveProperty("duplicateOf");
    expect(await writer.write(checked(forgedKey, "missing"))).toMatchObject({ status: "duplicate", duplicateOf: signed.id });
    expect(await writer.write(checked(genuineKey, "valid"))).toMatchObject({ status: "duplicate", duplicateOf: genuine });
    expect(await t.db.query("select first_event_id, verified from dedup_keys where key_hash = decode($1, 'hex')", [forgedKey])).toEqual([{ first_event_id: signed.id, verified: true }]);

    await t.orm.getMigrator().down({ to: BEFORE });
    const columns = await t.db.query<{ column_name: string }>("select column_name from information_schema.columns where table_name = 'dedup_keys' order by column_name");
    expect(columns.map((row) => row.column_name)).toEqual(["endpoint_id", "expires_at", "first_event_id", "key_hash"]);
  });
});
