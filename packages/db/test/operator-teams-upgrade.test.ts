import { describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { unmigratedDatabase } from "./unmigrated-database.js";

// Teams learn whether an operator made them (OIDC_DEFAULT_TEAM may name only such a team).
// Nothing recorded a team's maker before, so on upgrade a shared team counts as an operator's
// when a server admin owns it, and no other does; the migration goes back down as it came.

const BEFORE = "Migration20261207000000_fast_path_lease";


const t = unmigratedDatabase();

const columnExists = async () => (await t.db.query("select 1 from information_schema.columns where table_name = 'teams' and column_name = 'made_by_operator'")).length === 1;

describe("upgrading to teams that record an operator's making", () => {
  it("marks the shared teams a server admin owns, and no personal team or other shared team", async () => {
    await t.orm.getMigrator().up({ to: BEFORE });
    const admin = uuidv7();
    const user = uuidv7();
    await t.db.query("insert into users (id, email, password_hash, is_admin) values ($1, 'admin@example.com', 'x', true), ($2, 'user@example.com', 'x', false)", [admin, user]);
    const teams = { adminShared: uuidv7(), adminPersonal: uuidv7(), userShared: uuidv7(), userSharedWithAdmin: uuidv7() };
    await t.db.query(
      `insert into teams (id, name, slug, personal_of_id) values
         ($1, 'Platform', 'platform', null), ($2, 'admin', 'admin', $5), ($3, 'Squat', 'squat', null), ($4, 'Mixed', 'mixed', null)`,
      [teams.adminShared, teams.adminPersonal, teams.userShared, teams.userSharedWithAdmin, admin],
    );
    await t.db.query(
      `insert into team_members (team_id, user_id, role) values
         ($1, $5, 'owner'), ($2, $5, 'owner'), ($3, $6, 'owner'), ($4, $6, 'owner'), ($4, $5, 'admin')`,
      [teams.adminShared, teams.adminPersonal, teams.userShared, teams.userSharedWithAdmin, admin, user],
    );

    await t.orm.getMigrator().up();

    const marked = await t.db.query<{ slug: string; made_by_operator: boolean }>("select slug, made_by_operator from teams order by slug");
    expect(marked).toEqual([
      { slug: "admin", made_by_operator: false },
      { slug: "mixed", made_by_operator: false }, // an admin in it, but not its owner
      { slug: "platform", made_by_operator: true },
      { slug: "squat", made_by_operator: false },
    ]);
    // New teams start unmarked unless their maker says otherwise.
    await t.db.query("insert into teams (id, name, slug) values ($1, 'Later', 'later')", [uuidv7()]);
    expect((await t.db.query<{ made_by_operator: boolean }>("select made_by_operator from teams where slug = 'later'"))[0]!.made_by_operator).toBe(false);
  });

  it("goes back down, and up again", async () => {
    await t.orm.getMigrator().down({ to: BEFORE });
    expect(await columnExists()).toBe(false);
    await t.orm.getMigrator().up();
    expect(await columnExists()).toBe(true);
  });
});
