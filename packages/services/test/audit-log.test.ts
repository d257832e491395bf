import { afterAll, beforeAll, describe, expect } from "vitest";
import { AUDIT_ACTIONS, HIDDEN_QUERY_VALUE, uuidv7, type AuditAction } from "@rehook/core";
import { insertUser } from "@rehook/db";
import { PASSWORD } from "@rehook/vitest-config/service-fixtures";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  auditContracts,
  createEndpoint,
  deliveryContracts,
  destinationContracts,
  endpointContracts,
  eventContracts,
  getEvent,
  insertTeamNamed,
  logIn,
  openEventExport,
  replayContracts,
  runContract,
  settingsContracts,
  signUp,
  alertContracts,
  teamContracts,
  type Actor,
  type Services,
} from "@rehook/services";
import { capture, expectRefused, test } from "./support.js";

// The audit log on the running service graph: every change writes its entry in its own
// transaction, naming who (and from where), what and the fields that changed, and never a
// secret, a password, a body or a whole key.

let sink: Sink;
beforeAll(async () => {
  sink = await startSink((req, res) => {
    res.writeHead(req.url?.startsWith("/fail") ? 500 : 200);
    res.end("ok");
  });
});
afterAll(() => sink.close());
const url = (path: string) => `http://127.0.0.1:${sink.port}${path}`;

const ORIGIN = { requestId: "req-audit-1", ip: "192.0.2.7" };

async function auditRows(services: Services, teamId: string) {
  return services.orm.em.fork().execute<Array<{ row: string }>>(`select row_to_json(a)::text as row from audit_log a where team_id = ? order by id`, [teamId]);
}

/** The user's personal team. */
async function personalTeamOf(services: Services, userId: string): Promise<string | undefined> {
  const rows = await services.orm.em.fork().execute<Array<{ id: string }>>(`select id from teams where personal_of_id = ?`, [userId]);
  return rows[0]?.id;
}

/** Every entry of every team (and none), each row whole as JSON: what the secrets are looked for in. */
async function wholeLog(services: Services): Promise<string> {
  const rows = await services.orm.em.fork().execute<Array<{ row: string }>>(`select row_to_json(a)::text as row from audit_log a order by id`);
  return rows.map((row) => row.row).join("\n");
}

/** The first story's actions, in order (the first test); the second test does the rest. */
const FIRST_STORY: AuditAction[] = [
  "endpoint.create",
  "endpoint.update",
  "endpoint.secret_reveal",
  "endpoint.secret_rotate",
  "destination.create",
  "destination.update",
  "destination.delete",
  "event.replay",
  "events.export",
  "event.delete",
  "api_key.create",
  "api_key.revoke",
  "invite.create",
  "invite.use",
  "member.role_change",
  "member.remove",
  "notifications.update",
  "alert_rule.create",
  "alert_rule.update",
  "alert_rule.test",
  "alert_rule.delete",
  "team.rename",
  "user.sign_in",
  "user.sign_in_failed",
  "endpoint.delete",
];
/** Written where the story needs a process or a provider of its own, and asserted there. */
const ELSEWHERE: Partial<Record<AuditAction, string>> = {
  "member.add": "apps/cli/test/team-commands.test.ts (rehook member add) and apps/web/test/sso.test.ts (OIDC_DEFAULT_TEAM)",
  "user.link_identity": "apps/web/test/sso.test.ts",
  "destination.pause": "packages/services/test/breaker.test.ts (a breaker that trips, by the system)",
};

async function entries(services: Services, actor: Actor, input: Record<string, unknown> = {}) {
  return (await runContract(auditContracts.listAuditLogContract, services, actor, auditContracts.listAuditLogContract.input.parse(input))).entries;
}

describe("the audit log", () => {
  test("records every change with its actor, origin and changed fields, and never a secret, password, body or whole key", async ({ services, user }) => {
    const actor: Actor = { ...user.actor, origin: ORIGIN };
    const run = <C extends Parameters<typeof runContract>[0]>(contract: C, input: unknown) => runContract(contract, services, actor, contract.input.parse(input));
    const verificationSecret = "whsec_" + Buffer.from("a verification secret of ours!!!").toString("base64");

    const endpoint = (await run(endpointContracts.createEndpointContract, { name: "Stripe", destinationUrl: url("/in") })) as { id: string; slug: string };
    await run(endpointContracts.updateEndpointContract, { id: endpoint.id, name: "Stripe live", verification: { scheme: "standard-webhooks", secret: verificationSecret } });
    const revealed = (await run(endpointContracts.endpointSecretContract, { id: endpoint.id })) as { secret: string };
    const rotated = (await run(endpointContracts.rotateSecretContract, { id: endpoint.id })) as { secret: string };
    const destination = (await run(destinationContracts.createDestinationContract, { endpointId: endpoint.id, name: "CRM", url: url("/crm") })) as { id: string };
    await run(destinationContracts.updateDestinationContract, { endpointId: endpoint.id, destinationId: destination.id, rateLimitPerSecond: 5 });
    await run(destinationContracts.deleteDestinationContract, { endpointId: endpoint.id, destinationId: destination.id });

    const body = '{"marker":"BODY-SECRET-MARKER-1"}';
    const eventId = await capture(services, endpoint.slug, body);
    await run(replayContracts.replayEventContract, { eventId, environment: "custom", customUrl: url("/replayed"), overrides: { body: '{"marker":"EDITED-BODY-MARKER-2"}' } });
    for await (const exported of openEventExport(services, { teamId: user.teamId, by: actor, filter: { endpointId: endpoint.id, search: "BODY-SECRET-MARKER-1" } })) expect(exported.id).toBe(eventId);
    await run(eventContracts.deleteEventContract, { id: eventId });

    const key = (await run(settingsContracts.createApiKeyContract, { name: "deploy", role: "developer" })) as { key: string; apiKey: { id: string } };
    await run(settingsContracts.revokeApiKeyContract, { id: key.apiKey.id });
    const invite = (await run(settingsContracts.createInviteContract, { role: "developer" })) as { url: string; invite: { id: string } };
    const token = new URL(invite.url).searchParams.get("invite")!;
    const joiner = await insertUser(services.orm.em.fork(), { id: uuidv7(), email: `joiner-${uuidv7()}@example.com`, passwordHash: "unusable" });
    await runContract(settingsContracts.acceptInviteContract, services, { userId: joiner.id, teamId: user.teamId, role: "viewer" }, { token });
    await run(teamContracts.changeMemberRoleContract, { userId: joiner.id, role: "admin" });
    await run(teamContracts.removeMemberContract, { userId: joiner.id });
    const hook = "https://hooks.slack.com/services/T000/B000/HOOKSECRET123";
    await run(settingsContracts.saveNotificationsContract, { enabled: true, webhookUrl: hook, triggers: ["failed"] });
    const alertRule = { name: "Ops", trigger: "delivery_failed", channel: "webhook", target: url("/alert-hook-1") };
    const rule = (await run(alertContracts.createAlertRuleContract, alertRule)) as { id: string; secret: string };
    await run(alertContracts.updateAlertRuleContract, { ...alertRule, id: rule.id, target: url("/alert-hook-2") });
    await run(alertContracts.sendTestAlertContract, { id: rule.id });
    await run(alertContracts.deleteAlertRuleContract, { id: rule.id });
    await run(teamContracts.renameTeamContract, { name: "Payments" });
    await logIn(services, { email: user.email, password: PASSWORD, clientAddress: "198.51.100.9", requestId: "req-login" });
    await expectRefused(logIn(services, { email: user.email, password: "not the password at all", clientAddress: "198.51.100.9" }), "unauthorized");
    await endpointContracts.deleteEndpointContract.run(services, actor, { id: endpoint.id });

    const listed = await entries(services, actor, { limit: 200 });
    expect(listed.map((entry) => entry.action).reverse()).toEqual(FIRST_STORY);
    const byAction = new Map(listed.map((entry) => [entry.action, entry]));
    // Who, from where, what: the user's email and the request's id and address.
    expect(byAction.get("endpoint.create")).toMatchObject({
      actor: { type: "user", id: user.id, name: user.email },
      target: { type: "endpoint", id: endpoint.id, name: "Stripe" },
      requestId: ORIGIN.requestId,
      ip: ORIGIN.ip,
    });
    // The fields that changed, before and after; the verification rule holds a secret: "changed" only.
    expect(byAction.get("endpoint.update")!.changes).toEqual({ name: { before: "Stripe", after: "Stripe live" }, verification: "changed" });
    expect(byAction.get("destination.update")!.changes).toMatchObject({ rate_limit_per_second: { before: null, after: 5 } });
    expect(byAction.get("event.replay")!.changes).toMatchObject({ environment: "custom", target_url: url("/replayed"), edited: true, outcome: "delivered" });
    expect(byAction.get("invite.use")).toMatchObject({ actor: { type: "user", id: joiner.id, name: joiner.email }, changes: { role: "developer" } });
    expect(byAction.get("member.role_change")!.changes).toEqual({ role: { before: "developer", after: "admin" } });
    expect(byAction.get("notifications.update")!.changes).toMatchObject({ webhook_url: "changed", enabled: { before: false, after: true } });
    expect(byAction.get("alert_rule.update")).toMatchObject({ target: { type: "alert_rule", id: rule.id, name: "Ops" }, changes: { target: "changed" } });
    expect(byAction.get("alert_rule.delete")!.target).toEqual({ type: "alert_rule", id: rule.id, name: "Ops" });
    expect(byAction.get("user.sign_in")).toMatchObject({ actor: { name: user.email }, requestId: "req-login", ip: "198.51.100.9" });
    expect(byAction.get("user.sign_in_failed")!.changes).toEqual({ reason: "wrong password" });
    // A deleted endpoint is still named: its entries keep its name as it was.
    expect(byAction.get("endpoint.delete")!.target).toEqual({ type: "endpoint", id: endpoint.id, name: "Stripe live" });

    // Nothing secret in any column of any entry: the signing secrets, the verification secret,
    // the API key, the invite link's token, the chat hook, the password, the bodies.
    const everything = (await auditRows(services, user.teamId)).map((row) => row.row).join("\n");
    for (const secret of [revealed.secret, rotated.secret, verificationSecret, key.key, token, hook, rule.secret, "/alert-hook-", PASSWORD, "not the password at all", "BODY-SECRET-MARKER-1", "EDITED-BODY-MARKER-2"]) {
      expect(everything).not.toContain(secret);
    }
  });

  test("records the rest of what can change: every action it knows is written by something a user or the system does", async ({ services, user }) => {
    const actor: Actor = { ...user.actor, origin: ORIGIN };
    const run = <C extends Parameters<typeof runContract>[0]>(contract: C, input: unknown, as: Actor = actor) => runContract(contract, services, as, contract.input.parse(input));
    const customBody = "CUSTOM-RESPONSE-BODY-MARKER-3";
    const token = "QUERY-TOKEN-MARKER-4";

    // An account of its own making, through the sign-up form (the fixture's user is inserted bare).
    const signedUp = await signUp(services, { email: `signup-${uuidv7()}@example.com`, password: PASSWORD, clientAddress: "203.0.113.5", requestId: "req-signup" });
    // The ingress, retry, retention and dedup settings; the custom answer's body is "changed" only.
    const endpoint = (await run(endpointContracts.createEndpointContract, { name: "Shop", destinationUrl: url(`/fail?token=${token}`) })) as { id: string; slug: string };
    await run(endpointContracts.updateEndpointContract, {
      id: endpoint.id,
      retentionDays: 7,
      dedup: { key: "body", window_s: 60 },
      response: { status: 202, body: customBody },
      retryPolicy: { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 1000 },
    });
    const failedId = await capture(services, endpoint.slug, '{"n":1}');
    await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: failedId })).status === "failed", "the event to fail at its destination");
    await run(eventContracts.retryEventContract, { id: failedId });
    await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: failedId })).status === "failed", "the retry to fail too");
    const failedDelivery = (await getEvent(services, { teamId: user.teamId, eventId: failedId })).deliveries[0]!;
    await run(deliveryContracts.resolveDeliveryContract, { eventId: failedId, destinationId: failedDelivery.destinationId, note: "Handled by hand" });
    await run(endpointContracts.retryFailedContract, { id: endpoint.id });
    await run(endpointContracts.resumeEndpointContract, { id: endpoint.id });
    const destinations = (await run(destinationContracts.listDestinationsContract, { endpointId: endpoint.id })) as Array<{ id: string }>;
    await run(destinationContracts.resumeDestinationContract, { endpointId: endpoint.id, destinationId: destinations[0]!.id });
    // A plain replay, a local one (recorded by the browser that sent it) and a bulk one.
    await run(replayContracts.replayEventContract, { eventId: failedId, environment: "custom", customUrl: url(`/replayed?token=${token}`) });
    await run(replayContracts.recordLocalContract, { eventId: failedId, localPort: 3000, status: 200, latencyMs: 5 });
    await run(replayContracts.startBulkContract, { endpointId: endpoint.id, environment: "custom", customUrl: url(`/bulk?token=${token}`), status: "failed" });
    const invite = (await run(settingsContracts.createInviteContract, { role: "viewer" })) as { invite: { id: string } };
    await run(settingsContracts.revokeInviteContract, { id: invite.invite.id });
    const team = (await run(teamContracts.createTeamContract, { name: "Side project" })) as { id: string };
    await run(teamContracts.deleteTeamContract, {}, { ...actor, teamId: team.id, role: "owner" });

    const actions = (await entries(services, actor, { limit: 200 })).map((entry) => entry.action).reverse();
    expect(actions).toEqual([
      "endpoint.create",
      "endpoint.update",
      "event.retry",
      "delivery.resolve",
      "endpoint.retry_failed",
      "endpoint.resume",
      "destination.resume",
      "event.replay",
      "event.replay",
      "replay_job.create",
      "invite.create",
      "invite.revoke",
    ]);
    // A new team's making is its own first entry, and its deletion its last.
    const deleted = await entries(services, { ...actor, teamId: team.id }, { limit: 10 });
    expect(deleted.map((entry) => entry.action)).toEqual(["team.delete", "team.create"]);
    const created = await entries(services, { userId: signedUp.user.id, teamId: (await personalTeamOf(services, signedUp.user.id))!, role: "owner" }, { limit: 10 });
    expect(created.map((entry) => entry.action)).toEqual(["user.sign_in", "user.create"]);
    expect(created[1]).toMatchObject({ actor: { type: "user", id: signedUp.user.id }, changes: { via: "sign-up" }, requestId: "req-signup", ip: "203.0.113.5" });

    // Every action the log knows is written by one of the two stories, or by a test named here.
    const written = new Set<string>([...FIRST_STORY, ...actions, ...deleted.map((entry) => entry.action), ...created.map((entry) => entry.action), ...Object.keys(ELSEWHERE)]);
    expect([...AUDIT_ACTIONS].filter((action) => !written.has(action))).toEqual([]);

    // URLs keep their host and path; their query values (tokens ride there) are hidden.
    const byAction = new Map((await entries(services, actor, { limit: 200 })).map((entry) => [entry.action, entry]));
    expect(byAction.get("endpoint.create")!.changes).toMatchObject({ destination_url: url(`/fail?token=${HIDDEN_QUERY_VALUE}`) });
    expect(byAction.get("replay_job.create")!.changes).toMatchObject({ custom_url: url(`/bulk?token=${HIDDEN_QUERY_VALUE}`) });
    expect(byAction.get("delivery.resolve")).toMatchObject({ target: { type: "event", id: failedId }, changes: { destination_id: failedDelivery.destinationId, note: "Handled by hand" } });
    expect(byAction.get("endpoint.update")!.changes).toMatchObject({ retention_days: { before: null, after: 7 }, dedup: { before: null, after: { key: "body", window_s: 60 } }, response: "changed" });
    const everything = await wholeLog(services);
    for (const secret of [customBody, token, PASSWORD, '{"n":1}']) expect(everything).not.toContain(secret);
  });

  test("is append-only: the database refuses to change an entry", async ({ services, user }) => {
    await createEndpoint(services, { teamId: user.teamId, by: user.actor, name: "Kept" });
    const em = services.orm.em.fork();
    await expect(em.execute("update audit_log set action = 'team.rename' where team_id = ?", [user.teamId])).rejects.toThrow(/never changed/);
    expect((await entries(services, user.actor)).map((entry) => entry.action)).toEqual(["endpoint.create"]);
  });

  test("a change that fails leaves no entry, and an entry never outlives its rolled-back change", async ({ services, user }) => {
    await expectRefused(runContract(teamContracts.renameTeamContract, services, user.actor, { name: "" }), "validation_failed");
    await expectRefused(runContract(endpointContracts.deleteEndpointContract, services, user.actor, { id: uuidv7() }), "not_found");
    expect(await entries(services, user.actor)).toEqual([]);
  });

  test("lists newest first, filters by action, actor, target and time, and pages with a cursor", async ({ services, user }) => {
    const first = await createEndpoint(services, { teamId: user.teamId, by: user.actor, name: "One" });
    const second = await createEndpoint(services, { teamId: user.teamId, by: { ...user.actor, cli: true }, name: "Two" });
    await endpointContracts.updateEndpointContract.run(services, user.actor, { id: first.id, name: "One again" });
    const page1 = await runContract(auditContracts.listAuditLogContract, services, user.actor, auditContracts.listAuditLogContract.input.parse({ limit: 2 }));
    expect(page1.entries.map((entry) => entry.action)).toEqual(["endpoint.update", "endpoint.create"]);
    expect(page1.nextCursor).toBe(page1.entries[1]!.id);
    const page2 = await runContract(auditContracts.listAuditLogContract, services, user.actor, auditContracts.listAuditLogContract.input.parse({ limit: 2, cursor: page1.nextCursor }));
    expect(page2.entries.map((entry) => entry.target.name)).toEqual(["One"]);
    expect(page2.nextCursor).toBeNull();

    expect((await entries(services, user.actor, { action: "endpoint.create" })).map((entry) => entry.target.id)).toEqual([second.id, first.id]);
    expect((await entries(services, user.actor, { action: "endpoint." })).length).toBe(3);
    expect((await entries(services, user.actor, { actorType: "cli" })).map((entry) => entry.target.id)).toEqual([second.id]);
    expect((await entries(services, user.actor, { targetId: first.id })).map((entry) => entry.action)).toEqual(["endpoint.update", "endpoint.create"]);
    const newest = page1.entries[0]!.at;
    expect(await entries(services, user.actor, { from: new Date(newest.getTime() + 1) })).toEqual([]);
    expect((await entries(services, user.actor, { to: new Date(newest.getTime() + 1) })).length).toBe(3);
    await expectRefused(runContract(auditContracts.listAuditLogContract, services, user.actor, { limit: 10, action: "nothing.like.this" } as never), "validation_failed");
  });

  test("is for admins and owners: a developer is refused, and another team's entries are never listed", async ({ services, user, other }) => {
    await createEndpoint(services, { teamId: user.teamId, by: user.actor, name: "Mine" });
    await expectRefused(runContract(auditContracts.listAuditLogContract, services, { ...user.actor, role: "developer" }, { limit: 10 }), "forbidden");
    expect(await entries(services, other.actor)).toEqual([]);
    const team = await insertTeamNamed(services.orm.em.fork(), { name: "Elsewhere", ownerId: user.id, personal: false });
    expect(await entries(services, { ...user.actor, teamId: team.id })).toEqual([]);
  });
});
