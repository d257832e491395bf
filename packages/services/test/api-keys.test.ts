import { createHash } from "node:crypto";
import { describe, expect } from "vitest";
import { authenticateApiKey, createApiKey, listApiKeys, revokeApiKey } from "@rehook/services";
import { expectRefused, test } from "./support.js";

// API keys: issued once (only a digest is stored), listed per team, revoked at once, and
// checked from an Authorization header without telling a missing key from a revoked one.

describe("createApiKey", () => {
  test("answers the whole key once and stores only its digest", async ({ services, user, database }) => {
    const { key, apiKey } = await createApiKey(services, user.actor, { name: "  ci  " });
    expect(key).toMatch(/^pk_live_[0-9A-Za-z]{40}$/);
    expect(apiKey).toEqual({ id: apiKey.id, name: "ci", prefix: key.slice(0, 12), role: "developer", createdBy: user.email, createdAt: expect.any(Date), lastUsedAt: null, revokedAt: null });
    const [row] = await database.query<{ key_hash: Buffer; prefix: string }>("select key_hash, prefix from api_keys where id = $1", [apiKey.id]);
    expect(row!.key_hash.equals(createHash("sha256").update(key).digest())).toBe(true);
    expect(row!.prefix).toBe(apiKey.prefix);
    const anywhere = await database.query("select 1 from api_keys where position(convert_to($1, 'UTF8') in key_hash) > 0 or prefix = $1", [key]);
    expect(anywhere).toEqual([]);
  });

  test("names a key 'default' when no name is given", async ({ services, user }) => {
    expect((await createApiKey(services, user.actor, {})).apiKey.name).toBe("default");
  });

  test("refuses an empty, long or unstorable name", async ({ services, user }) => {
    await expectRefused(createApiKey(services, user.actor, { name: "   " }), "validation_failed", "Give the key a name.");
    await expectRefused(createApiKey(services, user.actor, { name: "k".repeat(101) }), "validation_failed", "The name must be at most 100 characters.");
    await expectRefused(createApiKey(services, user.actor, { name: "a\u0000b" }), "validation_failed", /^The name must not contain NUL characters/);
    expect(await listApiKeys(services, { teamId: user.teamId })).toEqual([]);
  });
});

describe("listApiKeys", () => {
  test("lists the team's keys, newest first, revoked ones marked, and no other team's", async ({ services, user, other }) => {
    const first = await createApiKey(services, user.actor, { name: "first" });
    const second = await createApiKey(services, user.actor, { name: "second" });
    await createApiKey(services, other.actor, { name: "theirs" });
    await revokeApiKey(services, user.actor, { keyId: first.apiKey.id });
    const listed = await listApiKeys(services, { teamId: user.teamId });
    expect(listed.map((key) => [key.name, key.revokedAt === null])).toEqual([
      ["second", true],
      ["first", false],
    ]);
    expect(listed[0]).toEqual(second.apiKey);
  });
});

describe("revokeApiKey and authenticateApiKey", () => {
  test("a key authenticates its creator in its team until it is revoked, then never", async ({ services, user }) => {
    const { key, apiKey } = await createApiKey(services, user.actor, { name: "live" });
    expect(await authenticateApiKey(services, `Bearer ${key}`)).toEqual({ userId: user.id, teamId: user.teamId, role: "developer", keyId: apiKey.id, prefix: apiKey.prefix });
    // The scheme is case-insensitive and trailing blanks are ignored.
    expect(await authenticateApiKey(services, `bearer ${key}  `)).toMatchObject({ keyId: apiKey.id });
    expect((await listApiKeys(services, { teamId: user.teamId }))[0]!.lastUsedAt).not.toBeNull();

    await revokeApiKey(services, user.actor, { keyId: apiKey.id });
    expect(await authenticateApiKey(services, `Bearer ${key}`)).toBeNull();
    await expectRefused(
      revokeApiKey(services, user.actor, { keyId: apiKey.id }),
      "not_found",
      `There is no active API key with the id ${apiKey.id}. It may have been revoked already.`,
    );
  });

  test("answers null for a missing, malformed or unknown key alike", async ({ services }) => {
    for (const header of [undefined, "", "Bearer", `Basic ${Buffer.from("a:b").toString("base64")}`, "Bearer pk_live_short", `Bearer pk_live_${"A".repeat(40)}`, `Bearer pk_live_${"A".repeat(40)} extra`]) {
      expect(await authenticateApiKey(services, header), String(header)).toBeNull();
    }
  });

  test("another team's key cannot be revoked: not_found, and it keeps working", async ({ services, user, other }) => {
    const theirs = await createApiKey(services, other.actor, { name: "theirs" });
    await expectRefused(revokeApiKey(services, user.actor, { keyId: theirs.apiKey.id }), "not_found", /no active API key/);
    await expectRefused(revokeApiKey(services, user.actor, { keyId: "not-a-uuid" }), "not_found");
    expect(await authenticateApiKey(services, `Bearer ${theirs.key}`)).toMatchObject({ userId: other.id, teamId: other.teamId });
  });
});
