import { randomBytes } from "node:crypto";
import { afterEach, describe, expect } from "vitest";
import { uuidv7, type Role } from "@rehook/core";
import { addTeamMember, announceAccessChange, createOrm, EventBus, insertUser, type BusMessage } from "@rehook/db";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createApiKey, createEndpoint, createTeam, openEndpointEventStream, openLiveEvents, revokeApiKey, type Actor, type Services } from "@rehook/services";
import { changeMemberRole, deleteTeam, removeMember } from "../src/teams.js";
import { capture, test as base } from "./support.js";

// Open streams (the dashboard's live feed, /api/v1's endpoint stream) end as soon as their
// holder loses the team: the member is removed or the key revoked, on this instance or on
// another one (the change travels on the LISTEN/NOTIFY bus). A role change does not end them.

/**
 * A second instance of the server, as far as access goes: its own connection pool (what it
 * changes is announced from there) and its own LISTEN connection (what its streams hear).
 * Services' tests may not import @rehook/server (the layer rule), so not the whole graph.
 */
type Instance = Pick<Services, "orm" | "bus">;
const test = base.extend<{ second: Instance }>({
  second: [
    async ({ database }, use) => {
      const orm = await createOrm({ databaseUrl: database.url, poolSize: 2 });
      const bus = await EventBus.connect(database.url);
      try {
        await use({ orm, bus });
      } finally {
        await bus.close();
        await orm.close(true);
      }
    },
    { scope: "file" },
  ],
});

const connections: AbortController[] = [];
afterEach(() => {
  for (const controller of connections.splice(0)) controller.abort();
});

type Kind = "live feed" | "endpoint stream";
type Read = { id: string } | "ended";

/** A stream reduced to what these tests need: the next thing it does, an event's id or its end. */
interface Opened {
  next(): Promise<Read>;
}

async function open(kind: Kind, services: Instance, access: { teamId: string; userId: string; keyId?: string }, endpointId: string): Promise<Opened> {
  const controller = new AbortController();
  connections.push(controller);
  const signal = controller.signal;
  if (kind === "live feed") {
    const feed = await openLiveEvents(services, { ...access, filter: { endpointId }, signal });
    return { next: async () => ((await feed.next()) as IteratorResult<Array<{ id: string }>>).value?.[0] ?? "ended" };
  }
  const stream = await openEndpointEventStream(services, { ...access, endpointId, signal });
  return { next: async () => ((await stream.next()) as IteratorResult<{ id: string }>).value ?? "ended" };
}

/** A read still under way, and what it came to once it settled. */
function pending(read: Promise<Read>): { settled: () => boolean; result: () => Read | undefined } {
  let result: Read | undefined;
  read.then(
    (value) => (result = value),
    (error: unknown) => (result = { id: `failed: ${String(error)}` }),
  );
  return { settled: () => result !== undefined, result: () => result };
}

interface Setup {
  endpoint: { id: string; slug: string };
  owner: Actor;
  member: Actor;
  /** A key of the member's. */
  key: { id: string; key: string };
}

async function setUp(services: Services, ownerId: string, role: Role = "developer"): Promise<Setup> {
  const team = await createTeam(services, { userId: ownerId, name: `Watched ${randomBytes(4).toString("hex")}` });
  const user = await insertUser(services.orm.em.fork(), { id: uuidv7(), email: `watcher-${randomBytes(6).toString("hex")}@example.com`, passwordHash: "unusable" });
  await addTeamMember(services.orm.em.fork(), team.id, user.id, role);
  const member: Actor = { userId: user.id, teamId: team.id, role };
  const endpoint = await createEndpoint(services, { teamId: team.id, name: "watched" });
  const { key, apiKey } = await createApiKey(services, member, { name: "listen", role: "viewer" });
  return { endpoint, owner: { userId: ownerId, teamId: team.id, role: "owner" }, member, key: { id: apiKey.id, key } };
}

/** Shows the stream is open and listening: an event captured now reaches it. Answers the read that follows. */
async function expectLive(services: Services, stream: Opened, slug: string, first?: Promise<Read>): Promise<ReturnType<typeof pending>> {
  const read = first ?? stream.next();
  const id = await capture(services, slug, '{"alive":true}');
  expect(await read).toEqual(expect.objectContaining({ id }));
  return pending(stream.next());
}

const KINDS: Kind[] = ["live feed", "endpoint stream"];
/** Where the stream is open, and the instance the change is made through. */
const WHERE = ["one instance", "the stream's instance, changed through another", "another instance, changed through the stream's"] as const;
type Where = (typeof WHERE)[number];
function instances(where: Where, services: Services, second: Instance): { streaming: Instance; changing: Instance } {
  if (where === "one instance") return { streaming: services, changing: services };
  return where.startsWith("the stream's") ? { streaming: services, changing: second } : { streaming: second, changing: services };
}

describe.for(KINDS)("the %s", (kind) => {
  test.for(WHERE)("ends when the member is removed (%s)", async (where, { services, second, user }) => {
    const { streaming, changing } = instances(where, services, second);
    const setup = await setUp(services, user.id);
    const stream = await open(kind, streaming, { teamId: setup.member.teamId, userId: setup.member.userId }, setup.endpoint.id);
    const next = await expectLive(services, stream, setup.endpoint.slug);

    await removeMember(changing, setup.owner, { userId: setup.member.userId });
    await waitFor(next.settled, "the stream to end", 5_000);
    expect(next.result()).toBe("ended");
  });

  test.for(WHERE)("ends when its key is revoked (%s); revoking another key does not end it", async (where, { services, second, user }) => {
    const { streaming, changing: changer } = instances(where, services, second);
    const setup = await setUp(services, user.id);
    const stream = await open(kind, streaming, { teamId: setup.member.teamId, userId: setup.member.userId, keyId: setup.key.id }, setup.endpoint.id);
    let next = await expectLive(services, stream, setup.endpoint.slug);

    const unrelated = await createApiKey(services, setup.owner, { name: "unrelated" });
    await revokeApiKey(changer, setup.owner, { keyId: unrelated.apiKey.id });
    const id = await capture(services, setup.endpoint.slug, "{}");
    await waitFor(next.settled, "the event captured after another key was revoked", 5_000);
    expect(next.result()).toEqual(expect.objectContaining({ id }));
    next = pending(stream.next());

    await revokeApiKey(changer, setup.member, { keyId: setup.key.id });
    await waitFor(next.settled, "the stream to end", 5_000);
    expect(next.result()).toBe("ended");
  });

  test("ends when the team is deleted through another instance", async ({ services, second, user }) => {
    const setup = await setUp(services, user.id);
    const stream = await open(kind, services, { teamId: setup.member.teamId, userId: setup.member.userId }, setup.endpoint.id);
    const next = await expectLive(services, stream, setup.endpoint.slug);

    await deleteTeam(second, { teamId: setup.member.teamId });
    await waitFor(next.settled, "the stream to end", 5_000);
    expect(next.result()).toBe("ended");
  });

  test("goes on through a role change, even one announced as an access change", async ({ services, second, user }) => {
    const setup = await setUp(services, user.id, "admin");
    // Opened on the second instance, whose own bus must hear the announcement and check it.
    const stream = await open(kind, second, { teamId: setup.member.teamId, userId: setup.member.userId, keyId: setup.key.id }, setup.endpoint.id);
    let next = await expectLive(services, stream, setup.endpoint.slug);

    // Watch the bus of the stream's instance, to know when the announcement has reached it.
    const heard: BusMessage[] = [];
    const unsubscribe = second.bus.subscribe((message) => void (message.type === "access.changed" && heard.push(message)));
    try {
      await changeMemberRole(services, setup.owner, { userId: setup.member.userId, role: "viewer" });
      await announceAccessChange(services.orm.em.fork(), { teamId: setup.member.teamId, userId: setup.member.userId });
      await waitFor(() => heard.some((message) => message.type === "access.changed" && message.userId === setup.member.userId), "the announcement on the stream's instance", 5_000);
    } finally {
      unsubscribe();
    }
    const id = await capture(services, setup.endpoint.slug, "{}");
    await waitFor(next.settled, "the event captured after the role change", 5_000);
    expect(next.result()).toEqual(expect.objectContaining({ id }));
    next = await expectLive(services, stream, setup.endpoint.slug);

    // The same stream does end once access is really gone.
    await removeMember(services, setup.owner, { userId: setup.member.userId });
    await waitFor(next.settled, "the stream to end", 5_000);
    expect(next.result()).toBe("ended");
  });
});
