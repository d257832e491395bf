import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { expectRefused, output } from "./cli-answers.js";
import { runCli } from "./run-cli.js";

// rehook team and member (the operator's tools), and --team/--role on the commands that act as
// a user: the CLI obeys the roles every transport obeys. Each test works in a team of its own,
// so the tests share only the users and run concurrently (see commands.test.ts on the cost of
// a process). The timeout covers a test's waits for a process slot: the file runs some sixty
// processes, and a test's own commands may wait behind most of them on a busy machine.

const OWNER = "owner@example.com";
const DEV = "dev@example.com";
const VIEWER = "viewer@example.com";
const OUTSIDER = "outsider@example.com";
const LISTER = "lister@example.com";

let db: TestDatabase;
let env: Record<string, string>;
const concurrent = { concurrent: true, timeout: 600_000 };

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, BASE_URL: "https://hooks.example.com" };
  // The first user first (a server's first user is its admin), then the others at once.
  expect((await runCli(["user", "create", "--email", OWNER, "--password", "long enough"], env)).code).toBe(0);
  const others = await Promise.all([DEV, VIEWER, OUTSIDER, LISTER].map((email) => runCli(["user", "create", "--email", email, "--password", "long enough"], env)));
  for (const created of others) expect(created.code, created.stderr).toBe(0);
}, 300_000);
afterAll(() => db.drop());

/** A team owned by OWNER with these members; answers its slug and id. */
async function teamWith(name: string, members: Record<string, string> = {}): Promise<{ id: string; slug: string }> {
  const team = output<{ id: string; slug: string }>(await runCli(["team", "create", "--email", OWNER, "--name", name], env));
  const added = await Promise.all(Object.entries(members).map(([email, role]) => runCli(["member", "add", "--team", team.slug, "--email", email, "--role", role], env)));
  for (const result of added) expect(result.code, result.stderr).toBe(0);
  return team;
}

async function personalTeamId(email: string): Promise<string> {
  const [row] = await db.query<{ id: string }>("select t.id from teams t join users u on u.id = t.personal_of_id where u.email = $1", [email]);
  return row!.id;
}

describe("rehook team", concurrent, () => {
  it("create prints {id, name, slug}, makes the user its owner, and a taken slug gets a suffix", async () => {
    const first = output(await runCli(["team", "create", "--email", OWNER, "--name", "Payments"], env));
    expect(Object.keys(first)).toEqual(["id", "name", "slug"]);
    expect(first).toMatchObject({ name: "Payments", slug: "payments" });
    expect(await db.query("select role from team_members where team_id = $1", [first.id])).toEqual([{ role: "owner" }]);
    const second = output(await runCli(["team", "create", "--email", OWNER, "--name", "Payments"], env));
    expect(second.slug).toMatch(/^payments-[a-z0-9]{6}$/);
  });

  it("create refuses an unknown owner and a blank name in one line", async () => {
    const [unknown, blank] = await Promise.all([
      runCli(["team", "create", "--email", "nobody@example.com", "--name", "Nope"], env),
      runCli(["team", "create", "--email", OWNER, "--name", "   "], env),
    ]);
    expectRefused(unknown, 1, /^rehook: There is no user with the email nobody@example\.com\. /);
    expectRefused(blank, 1, /give the team a name/i);
  });

  it("list shows the user's teams with their role, the personal team first: a table, or --json", async () => {
    const team = await teamWith("Listed Team", { [LISTER]: "viewer" });
    const [table, json] = await Promise.all([runCli(["team", "list", "--email", LISTER], env), runCli(["team", "list", "--email", LISTER, "--json"], env)]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+ROLE\s+PERSONAL\s+ID$/);
    expect(lines.slice(1).map((line) => line.split(/\s{2,}/))).toEqual([
      ["lister", "lister", "owner", "yes", await personalTeamId(LISTER)],
      ["listed-team", "Listed Team", "viewer", "no", team.id],
    ]);
    expect(output(json)).toEqual({
      data: [
        { id: await personalTeamId(LISTER), name: "lister", slug: "lister", role: "owner", personal: true },
        { id: team.id, name: "Listed Team", slug: "listed-team", role: "viewer", personal: false },
      ],
    });
  });

  it("create makes the operator's team, which OIDC_DEFAULT_TEAM may name; another user's team is refused at start in one line until adopted", async () => {
    const sso = { ...env, PORT: "0", LOG_LEVEL: "silent", OIDC_ISSUER: "http://127.0.0.1:9/", OIDC_CLIENT_ID: "rehook", OIDC_CLIENT_SECRET: "s3cret" };
    const ours = output<{ slug: string }>(await runCli(["team", "create", "--email", DEV, "--name", "Operations"], env));
    expect((await db.query<{ made_by_operator: boolean }>("select made_by_operator from teams where slug = $1", [ours.slug]))[0]!.made_by_operator).toBe(true);
    // A team an ordinary user made in the dashboard (as createTeam does for a user who is no server admin).
    const squat = output<{ slug: string }>(await runCli(["team", "create", "--email", DEV, "--name", "Squatted"], env));
    await db.query("update teams set made_by_operator = false where slug = $1", [squat.slug]);
    const [single, workers, missing] = await Promise.all([
      runCli(["start"], { ...sso, OIDC_DEFAULT_TEAM: squat.slug }),
      runCli(["start", "--workers", "2"], { ...sso, OIDC_DEFAULT_TEAM: squat.slug }),
      runCli(["start"], { ...sso, OIDC_DEFAULT_TEAM: "no-such-team" }),
    ]);
    for (const refused of [single, workers]) {
      expectRefused(refused, 1, new RegExp(`^rehook: invalid OIDC_DEFAULT_TEAM: team ${squat.slug} was not made by an operator .*rehook team adopt --slug ${squat.slug}`));
    }
    expectRefused(missing, 1, /^rehook: invalid OIDC_DEFAULT_TEAM: there is no team no-such-team; create one with rehook team create/);
    expect(output(await runCli(["team", "adopt", "--slug", squat.slug], env))).toMatchObject({ slug: squat.slug, name: "Squatted" });
    expect((await db.query<{ made_by_operator: boolean }>("select made_by_operator from teams where slug = $1", [squat.slug]))[0]!.made_by_operator).toBe(true);
    expectRefused(await runCli(["team", "adopt", "--slug", "no-such-team"], env), 1, /^rehook: There is no shared team no-such-team /);
  });
});

describe("rehook member", concurrent, () => {
  it("add adds a user with a role, and gives a member already there the new role", async () => {
    const team = await teamWith("Platform");
    const added = output(await runCli(["member", "add", "--team", team.slug, "--email", DEV, "--role", "developer"], env));
    expect(added).toEqual({ team: team.slug, email: DEV, role: "developer", previous_role: null });
    const changed = output(await runCli(["member", "add", "--team", team.slug, "--email", DEV, "--role", "admin"], env));
    expect(changed).toEqual({ team: team.slug, email: DEV, role: "admin", previous_role: "developer" });
    const rows = await db.query<{ role: string }>("select m.role from team_members m join users u on u.id = m.user_id where m.team_id = $1 and u.email = $2", [team.id, DEV]);
    expect(rows).toEqual([{ role: "admin" }]);
    // The operator at the shell is the actor: each change is in the team's audit log.
    const entries = await db.query<{ actor_type: string; action: string; target_name: string }>("select actor_type, action, target_name from audit_log where team_id = $1 and target_type = 'member' order by id", [team.id]);
    expect(entries).toEqual([
      { actor_type: "cli", action: "member.add", target_name: DEV },
      { actor_type: "cli", action: "member.role_change", target_name: DEV },
    ]);
  });

  it("add refuses an unknown team, an unknown user and a role that is not one", async () => {
    const team = await teamWith("Refusals");
    const [unknownTeam, unknownUser, badRole, demoteLastOwner] = await Promise.all([
      runCli(["member", "add", "--team", "no-such-team", "--email", DEV, "--role", "viewer"], env),
      runCli(["member", "add", "--team", team.slug, "--email", "nobody@example.com", "--role", "viewer"], env),
      runCli(["member", "add", "--team", team.slug, "--email", DEV, "--role", "boss"], env),
      runCli(["member", "add", "--team", team.slug, "--email", OWNER, "--role", "admin"], env),
    ]);
    expectRefused(unknownTeam, 1, /^rehook: There is no team with the slug no-such-team\. /);
    expectRefused(unknownUser, 1, /^rehook: There is no user with the email nobody@example\.com\. /);
    expectRefused(badRole, 2, /--role must be one of viewer, developer, admin, owner/);
    expectRefused(demoteLastOwner, 1, /owner@example\.com is the last owner of refusals, and a team always keeps at least one owner/);
    expect(await db.query("select role from team_members where team_id = $1", [team.id])).toEqual([{ role: "owner" }]);
  });

  it("list shows email, role, when each joined and was last active: a table, or --json", async () => {
    const team = await teamWith("Listing", { [DEV]: "developer" });
    const before = await runCli(["member", "list", "--team", team.slug], env);
    expect(before.code, before.stderr).toBe(0);
    const lines = before.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^EMAIL\s+ROLE\s+JOINED\s+LAST ACTIVE\s+KEYS$/);
    const devRow = lines.find((line) => line.startsWith(DEV))!.split(/\s{2,}/);
    // Owners first; the developer has not acted in the team yet.
    expect(lines[1]).toMatch(/^owner@example\.com\s+owner\s/);
    expect(devRow).toEqual([DEV, "developer", expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/), "-", "0"]);

    // Acting in the team (here: listing its endpoints) makes the member active.
    expect((await runCli(["endpoint", "list", "--email", DEV, "--team", team.slug], env)).code).toBe(0);
    const json = output<{ data: Array<Record<string, unknown>> }>(await runCli(["member", "list", "--team", team.slug, "--json"], env));
    expect(json.data.map((member) => member.email)).toEqual([OWNER, DEV]);
    expect(json.data[1]).toEqual({
      user_id: expect.any(String),
      email: DEV,
      role: "developer",
      joined_at: expect.stringMatching(/Z$/),
      last_active_at: expect.stringMatching(/Z$/),
      active_keys: 0,
    });
  });

  it("remove revokes the keys the member made for the team, says how many, and takes their access", async () => {
    const team = await teamWith("Ops", { [DEV]: "developer" });
    const keys = await Promise.all([
      runCli(["apikey", "create", "--email", DEV, "--team", team.slug, "--name", "one"], env),
      runCli(["apikey", "create", "--email", DEV, "--team", team.slug, "--name", "two"], env),
      runCli(["apikey", "create", "--email", DEV, "--name", "kept"], env),
    ]);
    for (const key of keys) expect(key.code, key.stderr).toBe(0);

    const removed = output(await runCli(["member", "remove", "--team", team.slug, "--email", DEV], env));
    expect(removed).toEqual({ team: team.slug, removed: DEV, revoked_keys: 2 });
    const active = await db.query<{ name: string }>(
      "select k.name from api_keys k join users u on u.id = k.user_id where u.email = $1 and k.revoked_at is null and k.name in ('one', 'two', 'kept')",
      [DEV],
    );
    expect(active).toEqual([{ name: "kept" }]);

    const [again, lostAccess] = await Promise.all([
      runCli(["member", "remove", "--team", team.slug, "--email", DEV], env),
      runCli(["endpoint", "list", "--email", DEV, "--team", team.slug], env),
    ]);
    expectRefused(again, 1, /^rehook: dev@example\.com is not a member of ops\. /);
    expectRefused(lostAccess, 1, /^rehook: There is no team ops with this user in it\. /);
  });

  it("remove refuses the team's last owner with one line, exit 1", async () => {
    const team = await teamWith("Kept", { [DEV]: "admin" });
    const refused = await runCli(["member", "remove", "--team", team.slug, "--email", OWNER], env);
    expectRefused(refused, 1, /^rehook: owner@example\.com is the last owner of kept, and a team always keeps at least one owner\. /);
    const members = await db.query<{ email: string; role: string }>(
      "select u.email, m.role from team_members m join users u on u.id = m.user_id where m.team_id = $1 order by u.email",
      [team.id],
    );
    expect(members).toEqual([
      { email: DEV, role: "admin" },
      { email: OWNER, role: "owner" },
    ]);
  });
});

describe("commands acting as a user, in a --team", concurrent, () => {
  it("endpoint commands need their contract's role: a viewer reads, a developer creates, deleting needs an admin", async () => {
    const team = await teamWith("Checkout", { [VIEWER]: "viewer", [DEV]: "developer" });
    const [viewerCreate, devCreate] = await Promise.all([
      runCli(["endpoint", "create", "--email", VIEWER, "--team", team.slug, "--name", "by viewer"], env),
      runCli(["endpoint", "create", "--email", DEV, "--team", team.slug, "--name", "by developer"], env),
    ]);
    expectRefused(viewerCreate, 1, /^rehook: This operation \(creates an endpoint\) needs the developer role in this team; you are a viewer\.$/m);
    const created = output<{ id: string; slug: string }>(devCreate);
    expect(await db.query("select team_id from endpoints where name in ('by viewer', 'by developer')")).toEqual([{ team_id: team.id }]);

    const [viewerList, viewerSecret, devDelete] = await Promise.all([
      runCli(["endpoint", "list", "--email", VIEWER, "--team", team.slug, "--json"], env),
      runCli(["endpoint", "secret", "--email", VIEWER, "--team", team.slug, "--slug", created.slug], env),
      runCli(["endpoint", "delete", "--email", DEV, "--team", team.slug, "--slug", created.slug], env),
    ]);
    expect(output<{ data: Array<{ id: string }> }>(viewerList).data.map((endpoint) => endpoint.id)).toEqual([created.id]);
    expectRefused(viewerSecret, 1, /needs the developer role in this team; you are a viewer\./);
    expectRefused(devDelete, 1, /needs the admin role in this team; you are a developer\./);
    expect(await db.query("select 1 from endpoints where id = $1", [created.id])).toHaveLength(1);
  });

  it("without --team a command acts in the user's personal team; an unknown or foreign --team is refused", async () => {
    const team = await teamWith("Elsewhere", { [DEV]: "developer" });
    const [personal, unknown, foreign] = await Promise.all([
      runCli(["endpoint", "create", "--email", DEV, "--name", "personal one"], env),
      runCli(["endpoint", "create", "--email", DEV, "--team", "no-such-team", "--name", "x"], env),
      runCli(["events", "list", "--email", OUTSIDER, "--team", team.slug], env),
    ]);
    const created = output<{ id: string }>(personal);
    expect(await db.query("select team_id from endpoints where id = $1", [created.id])).toEqual([{ team_id: await personalTeamId(DEV) }]);
    expectRefused(unknown, 1, /^rehook: There is no team no-such-team with this user in it\. /);
    expectRefused(foreign, 1, /^rehook: There is no team elsewhere with this user in it\. /);
  });

  it("apikey create makes a key of the team with --role (default developer), at most the user's own role", async () => {
    const team = await teamWith("Keys", { [DEV]: "developer", [VIEWER]: "viewer" });
    const [plain, viewerKey, aboveOwn, byViewer, notARole] = await Promise.all([
      runCli(["apikey", "create", "--email", DEV, "--team", team.slug, "--name", "deploys", "--json"], env),
      runCli(["apikey", "create", "--email", DEV, "--team", team.slug, "--name", "reader", "--role", "viewer", "--json"], env),
      runCli(["apikey", "create", "--email", DEV, "--team", team.slug, "--name", "too strong", "--role", "admin"], env),
      runCli(["apikey", "create", "--email", VIEWER, "--team", team.slug, "--name", "viewer's"], env),
      runCli(["apikey", "create", "--email", DEV, "--team", team.slug, "--role", "root"], env),
    ]);
    expect(output(plain)).toMatchObject({ name: "deploys", role: "developer" });
    expect(output(viewerKey)).toMatchObject({ name: "reader", role: "viewer" });
    expectRefused(aboveOwn, 1, /^rehook: A key can have at most its creator's role: you are a developer, so choose viewer or developer\.$/m);
    expectRefused(byViewer, 1, /needs the developer role in this team; you are a viewer\./);
    expectRefused(notARole, 2, /--role must be one of viewer, developer, admin, owner/);
    const stored = await db.query<{ name: string; role: string; email: string }>(
      "select k.name, k.role, u.email from api_keys k join users u on u.id = k.user_id where k.team_id = $1 order by k.name",
      [team.id],
    );
    expect(stored).toEqual([
      { name: "deploys", role: "developer", email: DEV },
      { name: "reader", role: "viewer", email: DEV },
    ]);
  });

  it("invite create needs the admin role in the team and gives --role (default developer)", async () => {
    const team = await teamWith("Growth", { [DEV]: "developer" });
    const [byDeveloper, byOwner] = await Promise.all([
      runCli(["invite", "create", "--email", DEV, "--team", team.slug], env),
      runCli(["invite", "create", "--email", OWNER, "--team", team.slug, "--role", "admin"], env),
    ]);
    expectRefused(byDeveloper, 1, /needs the admin role in this team; you are a developer\./);
    expect(byOwner.code, byOwner.stderr).toBe(0);
    const [details, link] = byOwner.stdout.trim().split("\n");
    expect(JSON.parse(details!)).toMatchObject({ state: "open", role: "admin", used_by: null });
    expect(link).toMatch(/^https:\/\/hooks\.example\.com\/signup\?invite=[0-9A-Za-z]{32}$/);
    expect(await db.query("select role from invites where team_id = $1", [team.id])).toEqual([{ role: "admin" }]);
    expect(JSON.parse(details!)).toMatchObject({ creates_accounts: true });
  });

  it("invite create says whether SIGNUP lets the link create accounts: with closed, only a server admin's does", async () => {
    const closed = { ...env, SIGNUP: "closed" };
    const [byServerAdmin, byOrdinaryUser] = await Promise.all([runCli(["invite", "create", "--email", OWNER], closed), runCli(["invite", "create", "--email", LISTER], closed)]);
    const details = (result: Awaited<ReturnType<typeof runCli>>) => {
      expect(result.code, result.stderr).toBe(0);
      return JSON.parse(result.stdout.trim().split("\n")[0]!) as Record<string, unknown>;
    };
    expect(details(byServerAdmin)).toMatchObject({ creates_accounts: true });
    expect(details(byServerAdmin)).not.toHaveProperty("note");
    expect(details(byOrdinaryUser)).toMatchObject({ creates_accounts: false, note: expect.stringMatching(/cannot create an account \(SIGNUP is closed: only a server admin's invite creates an account\)/) });
    expect(byOrdinaryUser.stdout.trim().split("\n").at(-1)).toMatch(/^https:\/\/hooks\.example\.com\/signup\?invite=/);
  });

  it("prints help for the team and member commands, and --team on the commands acting as a user", async () => {
    const commands = [["team"], ["member"], ["member", "add"]];
    const [help, ...helps] = await Promise.all([runCli(["events", "list", "--help"], env), ...commands.map((command) => runCli([...command, "--help"], env))]);
    for (const [index, result] of helps.entries()) {
      expect(result.code, commands[index]!.join(" ")).toBe(0);
      expect(result.stdout).toMatch(/^Usage: rehook/);
    }
    expect(helps[0]!.stdout).toContain("rehook team list");
    expect(helps[1]!.stdout).toContain("rehook member remove");
    expect(help.stdout).toMatch(/--team <value>\s+the slug of the team to act in \(default: the user's personal team\)/);
  });
});
