import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { TRPCError } from "@trpc/server";
import { describe, expect } from "vitest";
import { appRouter, createCaller, type ApiContext } from "@rehook/api";
import type { Role } from "@rehook/core";
import { ROUTES, type Route } from "@rehook/http";
import {
  chosenTeamId,
  createApiKey,
  createEndpoint,
  createInvite,
  createTeam,
  currentSession,
  listDestinations,
  replayContracts,
  revokeApiKey,
  runContract,
  settingsContracts,
  alertContracts,
  teamContracts,
  type Actor,
  type Services,
} from "@rehook/services";
import type { RehookServer } from "@rehook/server";
import { test as databaseTest } from "@rehook/vitest-config/fixtures";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { browserCookie, captureInto, CONTRACTS, joinTeam, liveFeedUrl, newPerson, openStream, restRole, roleRefusal, startTeamServer, type Person } from "./team-world.js";

// Isolation is the point of teams: every transport of one real server (the /api/v1 routes,
// every tRPC procedure, the dashboard's session routes and both live streams) is tried on
// team A's ids by people who must not have them: a member of another team, a viewer of A (who
// may read, never change), a removed ex-member of A and a revoked key of A. The routes and
// procedures are read from the route table and the router, so a new one is covered at once.

/** Team A as its owner left it: what nobody outside may see, and the ids an attacker aims at. */
interface World {
  rehook: RehookServer;
  services: Services;
  sink: Sink;
  owner: Person;
  ownerActor: Actor;
  team: { id: string; name: string; slug: string };
  endpoint: { id: string; slug: string; name: string };
  /** A's endpoint's destination (its destination_url). */
  destinationId: string;
  eventIds: string[];
  replayId: string;
  jobId: string;
  inviteId: string;
  alertRuleId: string;
  ownerKey: { key: string; id: string };
  /** Text of A's that no answer to an outsider may carry, not even an error's message. */
  secrets: string[];
  /** A's ids: an outsider may send them, but no success answers with them. */
  ids: string[];
  /** The API keys the attackers hold. */
  keys: { outsider: string; viewer: string; exMember: string; revoked: string };
}

/** A distinctive text in A's bodies, sink answers and settings. */
const MARKER = `a-only-${randomBytes(6).toString("hex")}`;

const test = databaseTest.extend<{ world: World }>({
  world: [
    async ({ database }, use) => {
      const rehook = await startTeamServer(database);
      const services = rehook.services;
      const sink = await startSink((_req, res) => res.end(`sink ${MARKER}`));
      try {
        const owner = await newPerson(services, "owner");
        const team = await createTeam(services, { userId: owner.id, name: `Team A ${MARKER}` });
        const ownerActor: Actor = { userId: owner.id, teamId: team.id, role: "owner" };
        const sinkUrl = `http://127.0.0.1:${sink.port}/in`;
        const endpoint = await createEndpoint(services, { teamId: team.id, name: `A payments ${MARKER}`, destinationUrl: sinkUrl });
        const [destination] = await listDestinations(services, { teamId: team.id, endpointId: endpoint.id });
        const eventIds = [await captureInto(services, endpoint.slug, `{"secret":"${MARKER}"}`), await captureInto(services, endpoint.slug, `{"n":2}`)];
        await waitFor(
          async () => (await database.query<{ n: string }>("select count(*) as n from events where id = any($1) and status = 'delivered'", [eventIds]))[0]!.n === "2",
          "A's events delivered",
        );
        const replay = await runContract(replayContracts.recordLocalContract, services, ownerActor, { eventId: eventIds[0]!, status: 200, latencyMs: 3, body: MARKER });
        const job = await runContract(replayContracts.startBulkContract, services, ownerActor, { endpointId: endpoint.id, environment: "custom", customUrl: sinkUrl, status: null });
        const { key, apiKey } = await createApiKey(services, ownerActor, { name: `owner ${MARKER}`, role: "admin" });
        const { invite } = await createInvite(services, ownerActor, { role: "developer" });
        await runContract(settingsContracts.saveNotificationsContract, services, ownerActor, { enabled: true, webhookUrl: `https://hooks.slack.com/services/TA/BA/${MARKER}`, triggers: ["failed"] });
        const alertRule = await runContract(alertContracts.createAlertRuleContract, services, ownerActor, {
          name: "A's alerts",
          trigger: "delivery_failed",
          threshold: null,
          endpointId: null,
          channel: "webhook",
          target: `http://127.0.0.1:${sink.port}/${MARKER}`,
          enabled: true,
        });

        // The attackers' keys: another team's admin key, a viewer's, a removed member's and a revoked one.
        const outsider = await newPerson(services, "outsider");
        const outsiderActor: Actor = { userId: outsider.id, teamId: outsider.personalTeamId, role: "owner" };
        const outsiderEndpoint = await createEndpoint(services, { teamId: outsider.personalTeamId, name: "outsider's own" });
        await captureInto(services, outsiderEndpoint.slug, "{}");
        const viewer = await joinTeam(services, await newPerson(services, "viewer"), team.id, "viewer");
        const exMember = await joinTeam(services, await newPerson(services, "ex-member"), team.id, "developer");
        const exMemberKey = (await createApiKey(services, exMember, { name: "ex-member's" })).key;
        expect(await runContract(teamContracts.removeMemberContract, services, ownerActor, { userId: exMember.userId })).toEqual({ revokedKeys: 1 });
        const revoked = await createApiKey(services, ownerActor, { name: "revoked", role: "admin" });
        await revokeApiKey(services, ownerActor, { keyId: revoked.apiKey.id });

        await use({
          rehook,
          services,
          sink,
          owner,
          ownerActor,
          team: { id: team.id, name: team.name, slug: team.slug },
          endpoint: { id: endpoint.id, slug: endpoint.slug, name: endpoint.name },
          destinationId: destination!.id,
          eventIds,
          replayId: replay.id,
          jobId: job.id,
          inviteId: invite.id,
          alertRuleId: alertRule.id,
          ownerKey: { key, id: apiKey.id },
          secrets: [MARKER, team.name, team.slug, owner.email, endpoint.name, endpoint.slug, apiKey.prefix],
          ids: [team.id, owner.id, endpoint.id, destination!.id, ...eventIds, replay.id, job.id, apiKey.id, invite.id, alertRule.id],
          keys: {
            outsider: (await createApiKey(services, outsiderActor, { name: "outsider's", role: "admin" })).key,
            viewer: (await createApiKey(services, viewer, { name: "viewer's", role: "viewer" })).key,
            exMember: exMemberKey,
            revoked: revoked.key,
          },
        });
      } finally {
        await sink.close();
        await rehook.close();
      }
    },
    { scope: "file" },
  ],
});

/** Fails when the text carries any of A's secrets (and, for a success, A's ids). */
function expectNothingOfA(world: World, text: string, what: string, success: boolean): void {
  for (const secret of success ? [...world.secrets, ...world.ids] : world.secrets) expect(text.includes(secret), `${what} carries ${secret}`).toBe(false);
}

// ---------------------------------------------------------------------------------------------
// tRPC: every procedure of the router, through the server-side caller with each attacker's context.

type Attacker = "outsider" | "viewer" | "exMember" | "anonymous";
const ATTACKERS: Attacker[] = ["outsider", "viewer", "exMember", "anonymous"];

/**
 * A procedure's call: its input (A's ids where it takes one) and whether that input names one of
 * A's resources (`target`: an outsider must be refused) or at most filters by one (an outsider
 * may get an answer, of their own team only).
 */
type Call = { input?: (world: World) => unknown; target: boolean } | { skip: string };

const byEndpoint = (world: World) => ({ id: world.endpoint.id });
const byDestination = (world: World) => ({ endpointId: world.endpoint.id, destinationId: world.destinationId });
const byEvent = (world: World) => ({ id: world.eventIds[0]! });
const eventRef = (world: World) => ({ eventId: world.eventIds[0]! });
const replayTarget = (world: World) => ({ environment: "custom", customUrl: `http://127.0.0.1:${world.sink.port}/again` });

const CALLS: Record<string, Call> = {
  "auth.me": { target: false },
  "auth.signupPolicy": { input: () => ({}), target: false },
  "auth.signUp": { skip: "makes a new account; no team's data (packages/api/test/auth.test.ts)" },
  "auth.logIn": { skip: "the caller's own session (packages/api/test/auth.test.ts)" },
  "auth.logOut": { skip: "the caller's own session (packages/api/test/auth.test.ts)" },
  "auth.signInOptions": { target: false },
  "auth.ssoStart": { skip: "single sign-on's start: no team's data, served to the dashboard's pages only (apps/web/test/sso.test.ts)" },
  "auth.ssoFinish": { skip: "single sign-on's callback: the caller's own session (apps/web/test/sso.test.ts)" },
  "endpoints.list": { target: false },
  "endpoints.get": { input: byEndpoint, target: true },
  "endpoints.create": { input: () => ({ name: "an attacker's" }), target: false },
  "endpoints.update": { input: (world) => ({ id: world.endpoint.id, name: "taken over" }), target: true },
  "endpoints.delete": { input: byEndpoint, target: true },
  "endpoints.secret": { input: byEndpoint, target: true },
  "endpoints.rotateSecret": { input: byEndpoint, target: true },
  "endpoints.resume": { input: byEndpoint, target: true },
  "endpoints.activity": { input: (world) => ({ id: world.endpoint.id, range: "day" }), target: true },
  "endpoints.retryFailed": { input: byEndpoint, target: true },
  "destinations.list": { input: (world) => ({ endpointId: world.endpoint.id }), target: true },
  "destinations.create": { input: (world) => ({ endpointId: world.endpoint.id, url: `http://127.0.0.1:${world.sink.port}/again` }), target: true },
  "destinations.update": { input: (world) => ({ ...byDestination(world), name: "taken over" }), target: true },
  "destinations.delete": { input: byDestination, target: true },
  "destinations.resume": { input: byDestination, target: true },
  "destinations.testFilter": { input: (world) => ({ eventId: world.eventIds[0]!, filter: { "body.secret": MARKER } }), target: true },
  "events.delete": { input: byEvent, target: true },
  "events.volume": { input: (world) => ({ range: "day", endpointId: world.endpoint.id }), target: false },
  "events.list": { input: (world) => ({ endpointId: world.endpoint.id }), target: false },
  "events.get": { input: byEvent, target: true },
  "events.responses": { input: byEvent, target: true },
  "events.compare": { input: (world) => ({ id: world.eventIds[0]!, left: "delivery:1", right: `replay:${world.replayId}` }), target: true },
  "events.attempt": { input: (world) => ({ eventId: world.eventIds[0]!, attempt: 1 }), target: true },
  "events.retry": { input: byEvent, target: true },
  "deliveries.resolve": { input: (world) => ({ eventId: world.eventIds[0]!, destinationId: world.destinationId, note: "an attacker's" }), target: true },
  "events.live": { skip: "a subscription: opened over HTTP in this file's live feed test" },
  "replays.create": { input: (world) => ({ ...eventRef(world), ...replayTarget(world) }), target: true },
  "replays.editSource": { input: eventRef, target: true },
  "replays.localRequest": { input: eventRef, target: true },
  "replays.recordLocal": { input: (world) => ({ ...eventRef(world), status: 200, latencyMs: 1 }), target: true },
  "replays.handToListener": { input: eventRef, target: true },
  "replays.localOutcome": { input: (world) => ({ ...eventRef(world), attemptId: world.replayId }), target: true },
  "replays.list": { input: eventRef, target: false },
  "replays.get": { input: (world) => ({ id: world.replayId }), target: true },
  "replays.startBulk": { input: (world) => ({ endpointId: world.endpoint.id, ...replayTarget(world), status: null }), target: true },
  "replays.bulk": { input: (world) => ({ id: world.jobId }), target: true },
  "apiKeys.list": { target: false },
  "apiKeys.create": { input: () => ({ name: "an attacker's" }), target: false },
  "apiKeys.revoke": { input: (world) => ({ id: world.ownerKey.id }), target: true },
  "notifications.get": { target: false },
  "notifications.save": { input: () => ({ enabled: false, webhookUrl: null, triggers: [] }), target: false },
  "notifications.sendTest": { target: false },
  "alerts.list": { target: false },
  "alerts.create": { input: (world) => ({ name: "an attacker's", trigger: "delivery_failed", channel: "webhook", target: `http://127.0.0.1:${world.sink.port}/attacker` }), target: false },
  "alerts.update": { input: (world) => ({ id: world.alertRuleId, name: "taken over", trigger: "delivery_failed", channel: "webhook", target: `http://127.0.0.1:${world.sink.port}/attacker` }), target: true },
  "alerts.delete": { input: (world) => ({ id: world.alertRuleId }), target: true },
  "alerts.sendTest": { input: (world) => ({ id: world.alertRuleId }), target: true },
  "invites.list": { target: false },
  "invites.create": { input: () => ({}), target: false },
  "invites.revoke": { input: (world) => ({ id: world.inviteId }), target: true },
  "teams.list": { target: false },
  "teams.current": { target: false },
  "teams.create": { input: () => ({ name: "An attacker's team" }), target: false },
  "teams.rename": { input: () => ({ name: "Renamed by an attacker" }), target: false },
  "teams.delete": { target: false },
  "teams.switch": { input: (world) => ({ teamId: world.team.id }), target: true },
  "members.list": { target: false },
  "audit.list": { input: () => ({ limit: 200 }), target: false },
  "members.setRole": { input: (world) => ({ userId: world.owner.id, role: "viewer" }), target: true },
  "members.remove": { input: (world) => ({ userId: world.owner.id }), target: true },
  "members.leave": { target: false },
  "members.acceptInvite": { input: () => ({ token: "not-a-token" }), target: false },
};

/** Procedures served without a session. */
const PUBLIC_PROCEDURES = new Set(["auth.me", "auth.signupPolicy", "auth.signInOptions"]);
/** tRPC paths whose contract has another name; procedures with no contract need a member of any role. */
const CONTRACT_OF: Record<string, string> = { "members.acceptInvite": "invites.accept" };
const roleOfProcedure = (path: string): Role => CONTRACTS.get(CONTRACT_OF[path] ?? path)?.role ?? "viewer";

const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, { _def: { type: "query" | "mutation" | "subscription" } }>).map(([path, procedure]) => ({
  path,
  kind: procedure._def.type,
}));

/** A fresh attacker of the kind, so that what one call changes (leaving, deleting their team) never reaches the next. */
async function attackerCookie(world: World, kind: Attacker): Promise<string | null> {
  const { services, team } = world;
  if (kind === "anonymous") return null;
  const person = await newPerson(services, kind);
  if (kind === "viewer") await joinTeam(services, person, team.id, "viewer");
  if (kind === "exMember") {
    await joinTeam(services, person, team.id, "developer");
    await runContract(teamContracts.removeMemberContract, services, world.ownerActor, { userId: person.id });
  }
  // Each of them chose team A in the switcher (the cookie is remembered per browser).
  return browserCookie(services, person.id, team.id);
}

/** The tRPC context the server builds for a request with this Cookie header. */
async function contextOf(services: Services, cookie: string | null): Promise<ApiContext> {
  return { services, session: cookie ? await currentSession(services, cookie) : null, teamChoice: chosenTeamId(cookie), clientAddress: "192.0.2.1", setCookie: () => undefined };
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: TRPCError };

async function callProcedure(world: World, cookie: string | null, path: string, input: unknown): Promise<Outcome> {
  const caller = createCaller(await contextOf(world.services, cookie)) as unknown as Record<string, Record<string, (input: unknown) => Promise<unknown>>>;
  const [area, name] = path.split(".") as [string, string];
  try {
    return { ok: true, value: await caller[area]![name]!(input) };
  } catch (error) {
    if (!(error instanceof TRPCError)) throw error;
    return { ok: false, error };
  }
}

const REFUSALS = ["UNAUTHORIZED", "FORBIDDEN", "NOT_FOUND", "BAD_REQUEST"];

describe("tRPC", () => {
  test("every procedure has a call here (a new one fails until it is given one)", () => {
    expect(procedures.map((procedure) => procedure.path).sort()).toEqual(Object.keys(CALLS).sort());
  });

  for (const attacker of ATTACKERS) {
    test(`every procedure, called by ${attacker} on team A's ids, refuses or answers nothing of A's, never a 500`, async ({ world }) => {
      for (const { path, kind } of procedures) {
        const call = CALLS[path]!;
        if ("skip" in call) continue;
        const cookie = await attackerCookie(world, attacker);
        const outcome = await callProcedure(world, cookie, path, call.input?.(world));
        const what = `${attacker} ${path}`;
        if (!outcome.ok) {
          expect(outcome.error.code, `${what}: ${outcome.error.message}`).not.toBe("INTERNAL_SERVER_ERROR");
          expect(outcome.error.message, what).toMatch(/\S/);
        }
        if (attacker === "anonymous") {
          if (PUBLIC_PROCEDURES.has(path)) expect(outcome.ok, what).toBe(true);
          else expect(outcome.ok ? "answered" : outcome.error.code, what).toBe("UNAUTHORIZED");
        } else if (attacker === "viewer") {
          // A member who may read: reads answer, anything more is refused naming the role it needs.
          const needed = roleOfProcedure(path);
          if (needed !== "viewer") {
            expect(outcome.ok ? "answered" : outcome.error.code, what).toBe("FORBIDDEN");
            if (!outcome.ok) expect(outcome.error.message, what).toMatch(roleRefusal(needed, "viewer"));
          } else if (kind === "query") expect(outcome.ok ? "answered" : `${outcome.error.code}: ${outcome.error.message}`, what).toBe("answered");
          else if (!outcome.ok) expect(outcome.error.message, `${what} is a viewer's: refused for another reason`).not.toMatch(/role in this team/);
          continue;
        } else if (call.target) {
          // Outside team A (the switcher's choice of A is not honoured): A's resource is not there.
          expect(REFUSALS, what).toContain(outcome.ok ? "answered" : outcome.error.code);
        }
        expectNothingOfA(world, outcome.ok ? JSON.stringify(outcome.value ?? null) : outcome.error.message, what, outcome.ok);
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// /api/v1: every route of the route table, with each attacker's key.

/** A body each route that reads one takes (so that what refuses is the key, not the body). */
const ACCEPTED_BODIES: Record<string, (world: World) => unknown> = {
  createEndpoint: () => ({ name: "an attacker's" }),
  updateEndpoint: () => ({ name: "taken over" }),
  createDestination: (world) => ({ url: `http://127.0.0.1:${world.sink.port}/again` }),
  updateDestination: () => ({ name: "taken over" }),
  replayEvent: (world) => ({ destination_url: `http://127.0.0.1:${world.sink.port}/again` }),
  recordLocalReplay: () => ({ status: 200, latency_ms: 4 }),
  resolveDelivery: () => ({ note: "an attacker's" }),
  createAlertRule: (world) => ({ name: "an attacker's", trigger: "delivery_failed", channel: "webhook", target: `http://127.0.0.1:${world.sink.port}/attacker` }),
  updateAlertRule: (world) => ({ target: `http://127.0.0.1:${world.sink.port}/attacker` }),
};

/** The route's path with A's ids in it, and A's endpoint as the filter where the route takes one. */
function pathInA(world: World, route: Route): string {
  const filled = route.path
    .replace(/^\/(events|endpoints)\/\{id\}/, (_whole, resource: string) => `/${resource}/${resource === "events" ? world.eventIds[0] : world.endpoint.id}`)
    .replace("{destination_id}", world.destinationId)
    .replace(/^\/alert-rules\/\{id\}/, `/alert-rules/${world.alertRuleId}`);
  expect(filled, `${route.path}: give its path parameters A's ids`).not.toMatch(/\{/);
  const shape = (route.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape && "endpoint_id" in shape ? `${filled}?endpoint_id=${world.endpoint.id}` : filled;
}

interface RestAnswer {
  status: number;
  contentType: string;
  text: string;
}

/** One request to the server; a stream's answer is its head only (its body never ends). */
function restCall(world: World, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<RestAnswer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${world.rehook.url}${path}`, { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers } }, (response) => {
      const contentType = String(response.headers["content-type"] ?? "");
      if (contentType.startsWith("text/event-stream")) {
        response.destroy();
        resolve({ status: response.statusCode!, contentType, text: "" });
        return;
      }
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode!, contentType, text: Buffer.concat(chunks).toString("utf8") }));
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** The JSON error shape: {"error": {"code", "message"}} (details for a 400 only). */
function expectErrorShape(answer: RestAnswer, what: string): { code: string; message: string } {
  expect(answer.contentType, what).toMatch(/^application\/json/);
  const json = JSON.parse(answer.text) as { error: { code: string; message: string } };
  expect(Object.keys(json), what).toEqual(["error"]);
  expect(json.error, what).toEqual(expect.objectContaining({ code: expect.any(String), message: expect.stringMatching(/\S/) }));
  return json.error;
}

describe("/api/v1", () => {
  for (const attacker of ["outsider", "viewer", "exMember", "revoked"] as const) {
    test(`every route, with the ${attacker}'s key on team A's ids, refuses or answers nothing of A's, never a 500`, async ({ world }) => {
      for (const route of ROUTES) {
        const path = pathInA(world, route);
        const bodyOf = ACCEPTED_BODIES[route.operationId];
        if (route.body) expect(bodyOf, `${route.operationId} reads a body: give it one it accepts`).toBeDefined();
        const answer = await restCall(world, route.method, `/api/v1${path}`, { authorization: `Bearer ${world.keys[attacker]}` }, route.body ? bodyOf!(world) : undefined);
        const what = `${attacker} ${route.method} ${path}`;
        expect(answer.status, what).toBeLessThan(500);
        const error = answer.status >= 400 ? expectErrorShape(answer, what) : null;
        if (attacker === "exMember" || attacker === "revoked") {
          // Their keys were revoked (the member's with their removal): nothing is served to them.
          expect(error, what).toEqual({ code: "unauthorized", message: expect.any(String) });
          continue;
        }
        if (attacker === "viewer") {
          const needed = restRole(route.operationId);
          if (needed === "viewer") expect(answer.status, what).toBe(200);
          else {
            expect(answer.status, what).toBe(403);
            expect(error, what).toEqual({ code: "forbidden", message: expect.stringMatching(roleRefusal(needed, "viewer")) });
          }
          continue;
        }
        // Another team's key: A's resource is not there for it; a list or a filter answers its own team's rows only.
        if (route.path.includes("{")) expect(answer.status, what).toBe(404);
        expectNothingOfA(world, answer.text, what, error === null);
      }
    });
  }

  test("GET /api/v1/team answers the key's team with the key's effective role", async ({ world }) => {
    const teamOf = async (key: string) => JSON.parse((await restCall(world, "GET", "/api/v1/team", { authorization: `Bearer ${key}` })).text) as unknown;
    expect(await teamOf(world.ownerKey.key)).toEqual({ ...world.team, role: "admin" });
    expect(await teamOf(world.keys.viewer)).toEqual({ ...world.team, role: "viewer" });
    const theirs = (await teamOf(world.keys.outsider)) as { id: string; role: Role };
    expect(theirs).toMatchObject({ role: "admin" });
    expect(theirs.id).not.toBe(world.team.id);
  });
});

// ---------------------------------------------------------------------------------------------
// The dashboard's session routes and the live feed, over HTTP with each attacker's cookie.

describe("session routes", () => {
  for (const attacker of ATTACKERS) {
    test(`replay, body download and export, by ${attacker} with team A chosen`, async ({ world }) => {
      const cookie = await attackerCookie(world, attacker);
      const headers: Record<string, string> = cookie ? { cookie } : {};
      const eventId = world.eventIds[0]!;
      const replay = await restCall(world, "POST", `/api/events/${eventId}/replay`, { ...headers, origin: world.rehook.url }, replayTarget(world));
      const body = await restCall(world, "GET", `/api/events/${eventId}/body`, headers);
      const exported = await restCall(world, "GET", `/api/events/export?format=ndjson&endpoint_id=${world.endpoint.id}`, headers);
      const answers = { replay, body, exported };
      for (const [name, answer] of Object.entries(answers)) {
        expect(answer.status, `${attacker} ${name}`).toBeLessThan(500);
        if (answer.status >= 400) expectErrorShape(answer, `${attacker} ${name}`);
      }
      if (attacker === "anonymous") {
        expect([replay.status, body.status, exported.status]).toEqual([401, 401, 401]);
      } else if (attacker === "viewer") {
        expect(replay.status).toBe(403);
        expect(expectErrorShape(replay, "viewer replay")).toEqual({ code: "forbidden", message: expect.stringMatching(roleRefusal("developer", "viewer")) });
        expect(body.status).toBe(200);
        expect(body.text).toContain(MARKER);
        expect(exported.status).toBe(200);
        expect(exported.text).toContain(eventId);
      } else {
        expect([replay.status, body.status]).toEqual([404, 404]);
        // The export filters the actor's own team's events: A's endpoint has none there.
        expect(exported.status).toBe(200);
        for (const [name, answer] of Object.entries(answers)) expectNothingOfA(world, answer.text, `${attacker} ${name}`, answer.status < 400);
      }
      expect(world.sink.received.filter((received) => received.url === "/again")).toEqual([]);
    });
  }

  test("the live feed and the /api/v1 stream carry A's new events to a viewer only", async ({ world }) => {
    const { services } = world;
    const outsider = await newPerson(services, "outsider");
    const outsiderEndpoint = await createEndpoint(services, { teamId: outsider.personalTeamId, name: "outsider's feed" });
    const feeds = {
      viewer: await openStream(liveFeedUrl(world.rehook.url), { cookie: (await attackerCookie(world, "viewer"))! }),
      outsider: await openStream(liveFeedUrl(world.rehook.url), { cookie: await browserCookie(services, outsider.id, world.team.id) }),
      exMember: await openStream(liveFeedUrl(world.rehook.url), { cookie: (await attackerCookie(world, "exMember"))! }),
      viewerKey: await openStream(`${world.rehook.url}/api/v1/endpoints/${world.endpoint.id}/stream`, { authorization: `Bearer ${world.keys.viewer}` }),
    };
    try {
      // Without a session, tRPC has answered 200 before the procedure runs: the refusal is the stream's error event, and it ends.
      const anonymous = await openStream(liveFeedUrl(world.rehook.url), {});
      await anonymous.ended;
      expect(anonymous.text()).toContain("UNAUTHORIZED");
      for (const [name, feed] of Object.entries(feeds)) expect(feed.response.statusCode, name).toBe(200);
      // Each open stream has subscribed once it answered; A's event is announced before the outsider's own.
      const inA = await captureInto(services, world.endpoint.slug, `{"late":"${MARKER}"}`);
      const theirs = await captureInto(services, outsiderEndpoint.slug, "{}");
      await waitFor(() => feeds.viewer.text().includes(inA) && feeds.viewerKey.text().includes(inA), "A's new event on the viewer's feed and stream");
      await waitFor(() => feeds.outsider.text().includes(theirs), "the outsider's own event on their feed");
      expect(feeds.outsider.text()).not.toContain(inA);
      expect(feeds.exMember.text()).not.toContain(inA);
      expectNothingOfA(world, feeds.outsider.text() + feeds.exMember.text(), "the outsiders' feeds", true);
    } finally {
      for (const feed of Object.values(feeds)) feed.close();
    }
  });
});

test("the checks above see A's data where it is: in the owner's own answers", async ({ world }) => {
  const owner = createCaller(await contextOf(world.services, await browserCookie(world.services, world.owner.id, world.team.id)));
  const answers = [await owner.endpoints.get({ id: world.endpoint.id }), await owner.events.list({ endpointId: world.endpoint.id }), await owner.teams.current()];
  for (const answer of answers) expect(() => expectNothingOfA(world, JSON.stringify(answer), "the owner's answer", true)).toThrow(/carries/);
  const exported = await restCall(world, "GET", `/api/v1/events/export?endpoint_id=${world.endpoint.id}`, { authorization: `Bearer ${world.ownerKey.key}` });
  expect(() => expectNothingOfA(world, exported.text, "the owner's export", true)).toThrow(/carries/);
});

test("team A is as its owner left it: nothing an attacker tried changed it", async ({ world, database }) => {
  const owner = createCaller(await contextOf(world.services, await browserCookie(world.services, world.owner.id, world.team.id)));
  expect(await owner.teams.current()).toMatchObject({ ...world.team, role: "owner" });
  expect((await owner.endpoints.list()).map((endpoint) => [endpoint.id, endpoint.name])).toEqual([[world.endpoint.id, world.endpoint.name]]);
  expect((await owner.destinations.list({ endpointId: world.endpoint.id })).map((destination) => [destination.id, destination.url, destination.enabled])).toEqual([
    [world.destinationId, `http://127.0.0.1:${world.sink.port}/in`, true],
  ]);
  expect((await owner.members.list()).find((member) => member.userId === world.owner.id)).toMatchObject({ role: "owner" });
  expect((await owner.apiKeys.list()).find((key) => key.id === world.ownerKey.id)).toMatchObject({ revokedAt: null });
  expect((await owner.invites.list()).find((invite) => invite.id === world.inviteId)).toMatchObject({ state: "open" });
  expect(await owner.notifications.get()).toMatchObject({ enabled: true, webhookUrl: expect.stringContaining(MARKER) });
  const stored = await database.query<{ id: string }>("select id from events where id = any($1)", [world.eventIds]);
  expect(stored).toHaveLength(2);
  // No replay reached the attackers' target, and none was recorded but the owner's.
  expect(world.sink.received.filter((received) => received.url === "/again")).toEqual([]);
  expect(await database.query("select 1 from replay_attempts where event_id = any($1) and id <> $2 and environment <> 'custom'", [world.eventIds, world.replayId])).toEqual([]);
});
