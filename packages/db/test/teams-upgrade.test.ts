import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createUuidV7Generator, isTeamSlug, uuidv7 } from "@rehook/core";
import { findActiveApiKey, findOwnedEndpoint } from "../src/index.js";
import { unmigratedDatabase } from "./unmigrated-database.js";

// A database made by the main of before teams (every row owned by a user) upgraded to teams:
// each user gets one personal team that owns what they owned, nothing moves or is lost, keys
// keep working as admin keys of that team; and the migration goes back down as it came.

const BEFORE_TEAMS = "Migration20261130000000_search_paths";
const TEAMS = "Migration20261201000000_teams";


const t = unmigratedDatabase();

const makeId = createUuidV7Generator();

/** A local part whose slug, cut at 40 characters, would end on a hyphen. */
const LONG_LOCAL = `${"a".repeat(39)}.b`;

/** What today's main holds: users (two whose emails make the same slug), and each kind of owned row. */
async function seedBeforeTeams() {
  const users = { ab: uuidv7(), aDashB: uuidv7(), nameless: uuidv7(), long: uuidv7() };
  // Created in this order: the first keeps the bare slug.
  await t.db.query(
    `insert into users (id, email, password_hash, created_at, is_admin) values
       ($1, 'a.b@x.com', 'x', now() - interval '3 days', true),
       ($2, 'a-b@y.com', 'x', now() - interval '2 days', false),
       ($3, '---@z.com', 'x', now() - interval '1 day', false),
       ($4, '${LONG_LOCAL}@w.com', 'x', now(), false)`,
    [users.ab, users.aDashB, users.nameless, users.long],
  );
  const endpoints = { abFirst: uuidv7(), abSecond: uuidv7(), aDashB: uuidv7() };
  const ownerOf = { [endpoints.abFirst]: users.ab, [endpoints.abSecond]: users.ab, [endpoints.aDashB]: users.aDashB };
  for (const [id, owner] of Object.entries(ownerOf)) {
    await t.db.query("insert into endpoints (id, user_id, name, slug, secret, destination_url) values ($1, $2, 'old', $3, 'whsec_x', 'https://example.com/in')", [
      id,
      owner,
      `old-${randomBytes(4).toString("hex")}`,
    ]);
  }
  const events = Object.keys(ownerOf).flatMap((endpointId, e) => Array.from({ length: 4 }, (_, i) => ({ id: makeId(Date.now() - (12 - e * 4 - i) * 60_000), endpointId })));
  for (const [n, event] of events.entries()) {
    await t.db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url, attempts)
       values ($1, $2, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', $3, 'https://example.com/in', 1)`,
      [event.id, event.endpointId, n % 2 === 0 ? "delivered" : "failed"],
    );
  }
  await t.db.query("insert into delivery_attempts (event_id, attempt, started_at, latency_ms, outcome) select id, 1, now(), 5, status from events");
  const job = uuidv7();
  await t.db.query("insert into replay_jobs (id, user_id, endpoint_id, environment, state, total, done) values ($1, $2, $3, 'original', 'finished', 2, 2)", [
    job,
    users.ab,
    endpoints.abFirst,
  ]);
  const replays = [uuidv7(), uuidv7(), uuidv7()];
  await t.db.query(
    `insert into replay_attempts (id, event_id, user_id, environment, destination_url, status, job_id) values
       ($1, $4, $6, 'original', 'https://example.com/in', 'delivered', $7),
       ($2, $4, $6, 'original', 'https://example.com/in', 'failed', $7),
       ($3, $5, $8, 'custom', 'https://example.com/other', 'delivered', null)`,
    [...replays, events[0]!.id, events[8]!.id, users.ab, job, users.aDashB],
  );
  const keys = { ab: uuidv7(), abRevoked: uuidv7(), aDashB: uuidv7() };
  const keyHashes = { ab: randomBytes(32), abRevoked: randomBytes(32), aDashB: randomBytes(32) };
  await t.db.query(
    `insert into api_keys (id, user_id, name, prefix, key_hash, revoked_at) values
       ($1, $4, 'ci', 'rh_aaaa', $6, null), ($2, $4, 'old', 'rh_bbbb', $7, now()), ($3, $5, 'laptop', 'rh_cccc', $8, null)`,
    [keys.ab, keys.abRevoked, keys.aDashB, users.ab, users.aDashB, keyHashes.ab, keyHashes.abRevoked, keyHashes.aDashB],
  );
  await t.db.query(
    `insert into notification_settings (user_id, enabled, webhook_url, triggers) values
       ($1, true, 'https://hooks.slack.com/services/T/B/X', '{failed}'), ($2, false, null, '{failed,paused}')`,
    [users.ab, users.aDashB],
  );
  await t.db.query(
    "insert into notification_outbox (user_id, event_id, trigger) values ($1, $3, 'failed'), ($1, $4, 'failed'), ($2, $5, 'failed')",
    [users.ab, users.aDashB, events[1]!.id, events[3]!.id, events[9]!.id],
  );
  await t.db.query("insert into jobs (kind, key) values ('notify', $1)", [users.ab]);
  const invite = uuidv7();
  await t.db.query("insert into invites (id, created_by_id, token_hash, expires_at) values ($1, $2, $3, now() + interval '7 days')", [invite, users.ab, randomBytes(32)]);
  return { users, endpoints, ownerOf, events, replays, job, keys, keyHashes, invite };
}

type Seeded = Awaited<ReturnType<typeof seedBeforeTeams>>;

/**
 * Each event's attempt count: its own column until routing (Migration20261203000000_destinations)
 * moved attempt counts to deliveries, and after it the attempts stored for it (the count the
 * routing migration's down rebuilds the column from). These events are all finished, so
 * the two agree.
 */
async function eventAttempts(): Promise<string> {
  const [column] = await t.db.query("select 1 from information_schema.columns where table_name = 'events' and column_name = 'attempts'");
  return column ? "attempts" : "(select count(*)::int from delivery_attempts a where a.event_id = events.id) as attempts";
}

/** The rows that must come through the upgrade untouched, keyed so any change shows. */
async function untouchedRows() {
  return {
    events: await t.db.query(`select id, endpoint_id, status, ${await eventAttempts()} from events order by id`),
    deliveries: await t.db.query("select id::text, event_id, attempt, outcome from delivery_attempts order by id"),
    replays: await t.db.query("select id, event_id, user_id, job_id, status from replay_attempts order by id"),
    counts: await t.db.query("select endpoint_id, status, n::int from event_counts order by endpoint_id, status"),
    users: await t.db.query("select id, email, is_admin from users order by id"),
  };
}

async function ownersBefore(table: string, idColumn: string) {
  return Object.fromEntries((await t.db.query<{ id: string; owner: string }>(`select ${idColumn}::text as id, user_id as owner from ${table}`)).map((row) => [row.id, row.owner]));
}

describe("upgrading to teams", () => {
  let seeded: Seeded;
  let before: Awaited<ReturnType<typeof untouchedRows>>;
  let owned: Record<string, Record<string, string>>;
  let personalTeam: Record<string, string>;

  it("gives every user exactly one personal team, owned by them, with unique slugs", async () => {
    await t.orm.getMigrator().up({ to: BEFORE_TEAMS });
    seeded = await seedBeforeTeams();
    before = await untouchedRows();
    owned = {
      endpoints: await ownersBefore("endpoints", "id"),
      notification_settings: await ownersBefore("notification_settings", "user_id"),
      notification_outbox: await ownersBefore("notification_outbox", "id"),
      replay_jobs: await ownersBefore("replay_jobs", "id"),
    };
    expect(Object.keys(owned.notification_outbox!)).toHaveLength(3);

    await t.orm.getMigrator().up();

    const teams = await t.db.query<{ id: string; name: string; slug: string; personal_of_id: string }>("select id, name, slug, personal_of_id from teams order by name");
    const { ab, aDashB, nameless, long } = seeded.users;
    expect(teams.map((team) => team.personal_of_id).sort()).toEqual([ab, aDashB, nameless, long].sort());
    personalTeam = Object.fromEntries(teams.map((team) => [team.personal_of_id, team.id]));
    const byUser = Object.fromEntries(teams.map((team) => [team.personal_of_id, team]));
    expect(byUser[ab]).toMatchObject({ name: "a.b", slug: "a-b" });
    expect(byUser[aDashB]!.name).toBe("a-b");
    expect(byUser[aDashB]!.slug).toMatch(/^a-b-[0-9a-f]{8}$/);
    expect(byUser[nameless]).toMatchObject({ name: "---", slug: "team" });
    expect(byUser[long]).toMatchObject({ name: LONG_LOCAL, slug: "a".repeat(39) });
    expect(new Set(teams.map((team) => team.slug)).size).toBe(teams.length);
    // Slugs as the app makes them (the CLI's --team takes them).
    expect(teams.filter((team) => !isTeamSlug(team.slug))).toEqual([]);

    expect(await t.db.query("select team_id, user_id, role from team_members order by user_id")).toEqual(
      [ab, aDashB, nameless, long].sort().map((user) => ({ team_id: personalTeam[user], user_id: user, role: "owner" })),
    );
  });

  it("points every owned row at its former owner's personal team", async () => {
    const teamOf = (owners: Record<string, string>) => Object.fromEntries(Object.entries(owners).map(([id, user]) => [id, personalTeam[user]]));
    const after = async (table: string, idColumn: string) =>
      Object.fromEntries((await t.db.query<{ id: string; team: string }>(`select ${idColumn}::text as id, team_id as team from ${table}`)).map((row) => [row.id, row.team]));
    expect(await after("endpoints", "id")).toEqual(teamOf(owned.endpoints!));
    expect(await after("notification_outbox", "id")).toEqual(teamOf(owned.notification_outbox!));
    expect(await after("replay_jobs", "id")).toEqual(teamOf(owned.replay_jobs!));
    // Settings are keyed by their owner: the key is now the team.
    expect(Object.keys(await after("notification_settings", "team_id")).sort()).toEqual([seeded.users.ab, seeded.users.aDashB].map((user) => personalTeam[user]).sort());
    expect(await t.db.query("select team_id, enabled, webhook_url from notification_settings where team_id = $1", [personalTeam[seeded.users.ab]])).toEqual([
      { team_id: personalTeam[seeded.users.ab], enabled: true, webhook_url: "https://hooks.slack.com/services/T/B/X" },
    ]);
    expect(await t.db.query("select created_by_id from replay_jobs where id = $1", [seeded.job])).toEqual([{ created_by_id: seeded.users.ab }]);
    // A chat post that was due follows its owner to the team.
    expect(await t.db.query("select key from jobs where kind = 'notify'")).toEqual([{ key: personalTeam[seeded.users.ab] }]);
    // An invite from before teams only signs up (no team, no role).
    expect(await t.db.query("select id, created_by_id, team_id, role from invites")).toEqual([{ id: seeded.invite, created_by_id: seeded.users.ab, team_id: null, role: null }]);
  });

  it("keeps every event, attempt and replay, with the same ids", async () => {
    expect(await untouchedRows()).toEqual(before);
    expect(before.events).toHaveLength(12);
    expect(before.deliveries).toHaveLength(12);
    expect(before.replays).toHaveLength(3);
    const em = t.orm.em.fork();
    const endpoint = await findOwnedEndpoint(em, personalTeam[seeded.users.aDashB]!, { id: seeded.endpoints.aDashB });
    expect(endpoint?.id).toBe(seeded.endpoints.aDashB);
    // Its destination came through too (as its first destination, since routing).
    expect(endpoint?.destinationUrl).toBe("https://example.com/in");
    expect(await findOwnedEndpoint(em, personalTeam[seeded.users.ab]!, { id: seeded.endpoints.aDashB })).toBeNull();
  });

  it("keeps API keys with their creator, as admin keys of the personal team that still work", async () => {
    const keys = await t.db.query("select id, user_id, team_id, role, revoked_at is not null as revoked from api_keys order by id");
    const { ab, aDashB } = seeded.users;
    expect(keys).toEqual(
      [
        { id: seeded.keys.ab, user_id: ab, team_id: personalTeam[ab], role: "admin", revoked: false },
        { id: seeded.keys.abRevoked, user_id: ab, team_id: personalTeam[ab], role: "admin", revoked: true },
        { id: seeded.keys.aDashB, user_id: aDashB, team_id: personalTeam[aDashB], role: "admin", revoked: false },
      ].sort((a, b) => a.id.localeCompare(b.id)),
    );
    const em = t.orm.em.fork();
    expect(await findActiveApiKey(em, seeded.keyHashes.ab)).toMatchObject({ keyId: seeded.keys.ab, teamId: personalTeam[ab], userId: ab, role: "admin", creatorRole: "owner" });
    expect(await findActiveApiKey(em, seeded.keyHashes.abRevoked)).toBeNull();
  });

  it("goes back down: owner columns are users again, and up once more", async () => {
    await t.orm.getMigrator().down({ to: TEAMS });
    for (const [table, owners] of Object.entries(owned)) {
      const idColumn = table === "notification_settings" ? "user_id" : "id";
      expect(await ownersBefore(table, idColumn), table).toEqual(owners);
    }
    const apiKeyColumns = await t.db.query<{ column_name: string }>("select column_name from information_schema.columns where table_name = 'api_keys' order by column_name");
    expect(apiKeyColumns.map((row) => row.column_name)).not.toContain("team_id");
    expect(await t.db.query("select key from jobs where kind = 'notify'")).toEqual([{ key: seeded.users.ab }]);
    expect(await t.db.query("select to_regclass('teams') as teams")).toEqual([{ teams: null }]);
    expect(await untouchedRows()).toEqual(before);

    await t.orm.getMigrator().up();
    expect(await t.db.query("select count(*)::int as n from teams")).toEqual([{ n: 4 }]);
    expect(await untouchedRows()).toEqual(before);
  });
});
