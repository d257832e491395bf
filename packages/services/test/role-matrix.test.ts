import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { roleAllows, ROLES, UserError, uuidv7, type Role } from "@rehook/core";
import { addTeamMember, insertUser } from "@rehook/db";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import {
  createAlertRule,
  createApiKey,
  createEndpoint,
  createInvite,
  deliveryContracts,
  endpointContracts,
  eventContracts,
  insertTeamNamed,
  replayContracts,
  runContract,
  settingsContracts,
  teamContracts,
  alertContracts,
  type Actor,
  type Contract,
  type Services,
} from "@rehook/services";
import { capture, MISSING_ID, test } from "./support.js";

// Every operation × every role, generated from the contracts (the one place a role is
// declared): a role below the contract's is refused with "forbidden" naming the role needed,
// before the use case runs; a role at or above it is never refused for its role.

const contracts: Contract[] = [endpointContracts, eventContracts, deliveryContracts, replayContracts, settingsContracts, teamContracts, alertContracts]
  .flatMap((module) => Object.values(module as Record<string, unknown>))
  .filter((value): value is Contract => typeof value === "object" && value !== null && "role" in value && "run" in value);

/** A team of its own per operation, with one member of each role and something to act on. */
interface World {
  teamId: string;
  actors: Record<Role, Actor>;
  endpointId: string;
  eventId: string;
  inviteId: string;
  /** A viewer key of the team (developers may revoke it). */
  keyId: string;
  /** An alert rule of the team, posting to the sink. */
  alertRuleId: string;
}

let sink: Sink;
beforeAll(async () => {
  sink = await startSink((_req, res) => res.end("ok"));
});
afterAll(() => sink.close());

async function member(services: Services, teamId: string | null, role: Role): Promise<{ id: string; email: string }> {
  const email = `${role}-${randomBytes(6).toString("hex")}@example.com`;
  const user = await insertUser(services.orm.em.fork(), { id: uuidv7(), email, passwordHash: "unusable" });
  if (teamId) await addTeamMember(services.orm.em.fork(), teamId, user.id, role);
  return { id: user.id, email };
}

async function buildWorld(services: Services): Promise<World> {
  const owner = await member(services, null, "owner");
  const team = await insertTeamNamed(services.orm.em.fork(), { name: `matrix ${randomBytes(4).toString("hex")}`, ownerId: owner.id, personal: false });
  const actors = { owner: { userId: owner.id, teamId: team.id, role: "owner" } } as Record<Role, Actor>;
  for (const role of ROLES.filter((each) => each !== "owner")) actors[role] = { userId: (await member(services, team.id, role)).id, teamId: team.id, role };
  const endpoint = await createEndpoint(services, { teamId: team.id, name: "matrix" });
  const eventId = await capture(services, endpoint.slug, '{"kind":"matrix"}');
  const invite = await createInvite(services, actors.owner, { role: "viewer" });
  const key = await createApiKey(services, actors.owner, { name: "viewer key", role: "viewer" });
  const rule = await createAlertRule(services, { teamId: team.id, name: "matrix", trigger: "delivery_failed", channel: "webhook", target: `http://127.0.0.1:${sink.port}/alerts` });
  return { teamId: team.id, actors, endpointId: endpoint.id, eventId, inviteId: invite.invite.id, keyId: key.apiKey.id, alertRuleId: rule.id };
}

/**
 * The input each operation is tried with: real rows of the world where there are some, so a
 * run that should not have happened would show in the team's rows. An operation with no entry
 * here fails the test (a new contract must be added).
 */
const inputs: Record<string, (world: World, services: Services) => unknown> = {
  "endpoints.list": () => ({}),
  "endpoints.create": () => ({ name: "made by the matrix" }),
  "endpoints.get": (w) => ({ id: w.endpointId }),
  "endpoints.update": (w) => ({ id: w.endpointId, name: "renamed by the matrix" }),
  "endpoints.delete": (w) => ({ id: w.endpointId }),
  "endpoints.resume": (w) => ({ id: w.endpointId }),
  "endpoints.retryFailed": (w) => ({ id: w.endpointId }),
  "endpoints.secret": (w) => ({ id: w.endpointId }),
  "endpoints.rotateSecret": (w) => ({ id: w.endpointId }),
  "endpoints.activity": (w) => ({ id: w.endpointId, range: "day" }),
  "events.list": () => ({}),
  "events.get": (w) => ({ id: w.eventId }),
  "events.delete": (w) => ({ id: w.eventId }),
  "events.retry": (w) => ({ id: w.eventId }),
  "events.attempt": (w) => ({ eventId: w.eventId, attempt: 1 }),
  "events.responses": (w) => ({ id: w.eventId }),
  "events.compare": (w) => ({ id: w.eventId, left: "original", right: "original" }),
  "events.volume": () => ({ range: "day" }),
  "deliveries.resolve": (w) => ({ eventId: w.eventId, destinationId: MISSING_ID, note: "resolved by the matrix" }),
  "replays.create": (w) => ({ eventId: w.eventId, environment: "custom", customUrl: `http://127.0.0.1:${sink.port}/matrix` }),
  "replays.editSource": (w) => ({ eventId: w.eventId }),
  "replays.localRequest": (w) => ({ eventId: w.eventId, localPort: 3000 }),
  "replays.recordLocal": (w) => ({ eventId: w.eventId, localPort: 3000, status: 200, latencyMs: 3 }),
  "replays.handToListener": (w) => ({ eventId: w.eventId }),
  "replays.localOutcome": (w) => ({ eventId: w.eventId, attemptId: MISSING_ID }),
  "replays.list": () => ({}),
  "replays.get": () => ({ id: MISSING_ID }),
  "replays.startBulk": (w) => ({ endpointId: w.endpointId, environment: "custom", customUrl: `http://127.0.0.1:${sink.port}/bulk`, status: null }),
  "replays.bulk": () => ({ id: MISSING_ID }),
  "apiKeys.list": () => ({}),
  "apiKeys.create": () => ({ name: "made by the matrix", role: "viewer" }),
  "apiKeys.revoke": (w) => ({ id: w.keyId }),
  "notifications.get": () => ({}),
  "notifications.save": () => ({ enabled: false, webhookUrl: null, triggers: ["failed"] }),
  "notifications.sendTest": () => ({}),
  "invites.list": () => ({}),
  "invites.create": () => ({ role: "viewer" }),
  "invites.revoke": (w) => ({ id: w.inviteId }),
  // A fresh link of the team each time: the link, not the role, admits (a member keeps their role).
  "invites.accept": async (w, services) => ({ token: new URL((await createInvite(services, w.actors.owner, { role: "viewer" })).url).searchParams.get("invite") }),
  "teams.current": () => ({}),
  "teams.list": () => ({}),
  "teams.create": () => ({ name: "made by the matrix" }),
  "teams.rename": () => ({ name: "renamed by the matrix" }),
  "teams.delete": () => ({}),
  "members.list": () => ({}),
  "members.setRole": (w) => ({ userId: w.actors.viewer.userId, role: "developer" }),
  "members.remove": (w) => ({ userId: w.actors.viewer.userId }),
  "members.leave": () => ({}),
  "alerts.list": () => ({}),
  "alerts.create": () => ({ name: "made by the matrix", trigger: "delivery_failed", channel: "webhook", target: `http://127.0.0.1:${sink.port}/matrix` }),
  "alerts.update": (w) => ({ id: w.alertRuleId, name: "renamed by the matrix", trigger: "delivery_failed", channel: "webhook", target: `http://127.0.0.1:${sink.port}/alerts` }),
  "alerts.delete": (w) => ({ id: w.alertRuleId }),
  "alerts.sendTest": (w) => ({ id: w.alertRuleId }),
};

/**
 * Mutations whose allowed runs leave the team's rows as they were with the input above (so
 * the refusal check of the others is not vacuous: their runs do show in the rows).
 */
const CHANGES_NOTHING_IN_THE_TEAM = new Set([
  "endpoints.resume", // the endpoint was not paused
  "endpoints.retryFailed", // no event failed
  "events.retry", // a capture-only endpoint has nowhere to send it
  "deliveries.resolve", // the same event has no delivery to resolve
  "notifications.sendTest", // nothing saved to post to
  "teams.create", // a team of the caller's own
  "replays.handToListener", // no listener is connected: nothing is handed over
]);

/** Everything of the team an operation could change, as one value to compare. */
async function teamRows(services: Services, world: World): Promise<unknown> {
  const rows = await services.orm.em.getConnection().execute<Array<{ rows: unknown }>>(
    `select jsonb_build_object(
       'team', (select to_jsonb(t) from teams t where t.id = ?),
       'members', (select jsonb_agg(jsonb_build_object('user', m.user_id, 'role', m.role) order by m.user_id) from team_members m where m.team_id = ?),
       'endpoints', (select jsonb_agg(to_jsonb(e) order by e.id) from endpoints e where e.team_id = ?),
       'events', (select jsonb_agg(to_jsonb(v) - 'body' order by v.id) from events v where v.endpoint_id = ?),
       'deliveries', (select jsonb_agg(to_jsonb(d) order by d.id) from delivery_attempts d join events v on v.id = d.event_id where v.endpoint_id = ?),
       'replays', (select jsonb_agg(to_jsonb(r) order by r.id) from replay_attempts r join events v on v.id = r.event_id where v.endpoint_id = ?),
       'bulk', (select jsonb_agg(to_jsonb(j) order by j.id) from replay_jobs j where j.team_id = ?),
       'keys', (select jsonb_agg(to_jsonb(k) - 'last_used_at' order by k.id) from api_keys k where k.team_id = ?),
       'invites', (select jsonb_agg(to_jsonb(i) order by i.id) from invites i where i.team_id = ?),
       'notifications', (select jsonb_agg(to_jsonb(n)) from notification_settings n where n.team_id = ?),
       'alerts', (select jsonb_agg(to_jsonb(a) order by a.id) from alert_rules a where a.team_id = ?)
     ) as rows`,
    [world.teamId, world.teamId, world.teamId, world.endpointId, world.endpointId, world.endpointId, world.teamId, world.teamId, world.teamId, world.teamId, world.teamId],
  );
  return rows[0]!.rows;
}

/** Runs the operation as a transport does: input parsed by the contract (left raw when it does not parse), then runContract. */
async function attempt(services: Services, contract: Contract, actor: Actor, raw: unknown): Promise<UserError | null> {
  const parsed = contract.input.safeParse(raw);
  try {
    await runContract(contract, services, actor, parsed.success ? parsed.data : raw);
    return null;
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
}

const article = (role: Role) => (role === "admin" || role === "owner" ? "an" : "a");

describe("the role matrix", () => {
  test("covers every operation", () => {
    expect(contracts.length).toBeGreaterThan(40);
    expect(contracts.map((contract) => contract.name).filter((name) => !(name in inputs))).toEqual([]);
  });

  test.for(contracts.map((contract) => [contract.name, contract] as const))("%s: refused below its role, never for its role at or above", async ([, contract], { services }) => {
    const world = await buildWorld(services);
    const makeInput = inputs[contract.name]!;
    const before = await teamRows(services, world);
    // Weakest first: every refusal is checked before an allowed run changes the rows.
    for (const role of ROLES) {
      const refusal = await attempt(services, contract, world.actors[role], await makeInput(world, services));
      if (!roleAllows(role, contract.role)) {
        expect(refusal?.code, `${role} must be refused`).toBe("forbidden");
        expect(refusal!.message).toContain(`needs the ${contract.role} role in this team; you are ${article(role)} ${role}.`);
        expect(await teamRows(services, world), `${role}'s refused call must change nothing`).toEqual(before);
      } else {
        expect(refusal?.code, `${role} is allowed: ${refusal?.message}`).not.toBe("forbidden");
      }
    }
    if (contract.kind === "mutation" && !CHANGES_NOTHING_IN_THE_TEAM.has(contract.name)) {
      expect(await teamRows(services, world), "the allowed runs change the team's rows").not.toEqual(before);
    }
  });
});

/** The issue's table of roles, operation by operation. */
const ISSUE_TABLE: Record<Role, string[]> = {
  // Reads: endpoints, events, bodies, attempts, replays, charts. And what any member may do for themselves.
  viewer: [
    "endpoints.list",
    "endpoints.get",
    "endpoints.activity",
    "events.list",
    "events.get",
    "events.attempt",
    "events.responses",
    "events.compare",
    "events.volume",
    "replays.editSource",
    "replays.list",
    "replays.get",
    "replays.bulk",
    "teams.current",
    "teams.list",
    "teams.create",
    "members.list",
    "members.leave",
    "invites.accept",
  ],
  // Create and change endpoints, replay (single, edited, bulk), retry, resume, secrets, API keys.
  developer: [
    "endpoints.create",
    "endpoints.update",
    "endpoints.resume",
    "endpoints.retryFailed",
    "endpoints.secret",
    "endpoints.rotateSecret",
    "events.delete",
    "events.retry",
    "deliveries.resolve",
    "replays.create",
    "replays.localRequest",
    "replays.recordLocal",
    "replays.handToListener",
    "replays.localOutcome",
    "replays.startBulk",
    "apiKeys.list",
    "apiKeys.create",
    "apiKeys.revoke",
  ],
  // Members, invites, chat notifications and alert rules, deleting endpoints.
  admin: [
    "endpoints.delete",
    "notifications.get",
    "notifications.save",
    "notifications.sendTest",
    "alerts.list",
    "alerts.create",
    "alerts.update",
    "alerts.delete",
    "alerts.sendTest",
    "invites.list",
    "invites.create",
    "invites.revoke",
    "members.setRole",
    "members.remove",
  ],
  owner: ["teams.rename", "teams.delete"],
};

describe("the issue's table", () => {
  test("every operation needs the role the issue gives it", () => {
    const declared = Object.fromEntries(contracts.map((contract) => [contract.name, contract.role]));
    const expected = Object.fromEntries(ROLES.flatMap((role) => ISSUE_TABLE[role].map((name) => [name, role])));
    expect(declared).toEqual(expected);
  });

  const byName = new Map(contracts.map((contract) => [contract.name, contract]));
  test.for([
    ["viewer", "replays.create", false],
    ["viewer", "replays.startBulk", false],
    ["viewer", "endpoints.create", false],
    ["viewer", "endpoints.secret", false],
    ["viewer", "notifications.get", false],
    ["viewer", "events.list", true],
    ["developer", "replays.create", true],
    ["developer", "endpoints.create", true],
    ["developer", "apiKeys.create", true],
    ["developer", "endpoints.delete", false],
    ["developer", "invites.create", false],
    ["developer", "members.setRole", false],
    ["developer", "members.remove", false],
    ["developer", "alerts.create", false],
    ["admin", "endpoints.delete", true],
    ["admin", "invites.create", true],
    ["admin", "members.remove", true],
    ["admin", "notifications.save", true],
    ["admin", "teams.rename", false],
    ["admin", "teams.delete", false],
    ["owner", "teams.rename", true],
    ["owner", "teams.delete", true],
  ] as const)("%s may %s: %s", ([role, name, allowed]) => {
    const contract = byName.get(name);
    expect(contract, name).toBeDefined();
    expect(roleAllows(role, contract!.role)).toBe(allowed);
  });
});
