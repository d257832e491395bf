import { afterEach, describe, expect } from "vitest";
import { uuidv7 } from "@rehook/core";
import { createPool, GroupCommitWriter, type Pool } from "@rehook/db";
import { createEndpoint, openEndpointEventStream, streamSlotsOf, type FullEvent } from "@rehook/services";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// `rehook listen`'s stream of one endpoint's events, on the graph's LISTEN/NOTIFY bus: the
// endpoint's new events whole and in order, a resumed stream's backlog first (from a little
// before the last id seen, each id once), nothing of other endpoints, and an end when its
// connection does.

const streams: AbortController[] = [];
afterEach(() => {
  for (const controller of streams.splice(0)) controller.abort();
});
function connection(): AbortController {
  const controller = new AbortController();
  streams.push(controller);
  return controller;
}

/** The next `count` events of a stream, with a time limit so a missing event fails the test. */
async function take(stream: AsyncGenerator<FullEvent>, count: number, pending?: Promise<IteratorResult<FullEvent>>): Promise<FullEvent[]> {
  const events: FullEvent[] = [];
  let next = pending ?? stream.next();
  while (events.length < count) {
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`only ${events.length} of ${count} events arrived`)), 10_000)));
    const result = await Promise.race([next, limit]).finally(() => clearTimeout(timer));
    if (result.done) throw new Error(`the stream ended after ${events.length} events`);
    events.push(result.value);
    if (events.length < count) next = stream.next();
  }
  return events;
}

describe("openEndpointEventStream", () => {
  test("sends the endpoint's new events whole, and none of another endpoint or user", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "listened" });
    const elsewhere = await createEndpoint(services, { teamId: user.teamId, name: "elsewhere" });
    const theirs = await createEndpoint(services, { teamId: other.teamId, name: "theirs" });
    const stream = await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, signal: connection().signal });
    // The first read subscribes to the bus before it waits.
    const first = stream.next();
    await capture(services, elsewhere.slug, "{}");
    await capture(services, theirs.slug, "{}");
    const body = Buffer.from([0x7b, 0x7d, 0x00, 0xff]);
    const id = await capture(services, endpoint.slug, body, [["Content-Type", "application/octet-stream"], ["X-Github-Event", "push"]], { method: "PUT", subPath: "/deep/path", query: "a=1&b=2" });
    const second = await capture(services, endpoint.slug, "{}");
    const [event, next] = await take(stream, 2, first);
    expect(event).toMatchObject({
      id,
      endpointId: endpoint.id,
      method: "PUT",
      path: "/deep/path",
      query: "a=1&b=2",
      headers: [
        ["Content-Type", "application/octet-stream"],
        ["X-Github-Event", "push"],
      ],
      receivedAt: expect.any(Date),
    });
    expect(event!.body.equals(body)).toBe(true);
    expect(next!.id).toBe(second);
  });

  // Issue 41 (4.1, review): events.stored_order was drawn at INSERT, so a capture that inserted
  // first and committed last had the lower number: a client that saw the other one live and
  // resumed after it never got this one. The capture statement now draws it under a lock held
  // until commit, so the second capture waits: commit order and stored order agree.
  test("a capture that inserted first and commits last is neither lost nor sent twice by a resumed stream", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "late commit" });
    const live = connection();
    const first = await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, signal: live.signal });
    const pending = first.next();
    const z = await capture(services, endpoint.slug, "z");
    const seen = await take(first, 1, pending);

    // A: the real capture statement in a transaction held open after its INSERT.
    const pool = createPool({ databaseUrl: database.url, max: 1 });
    const held = await pool.connect();
    try {
      await held.query("begin");
      const a = uuidv7();
      const request = { id: a, slug: endpoint.slug, receivedAt: new Date(), method: "POST", path: "", query: "", headers: [], body: Buffer.from("a"), contentType: null, clientIp: null, source: "generic", eventType: "" };
      expect((await new GroupCommitWriter(held as unknown as Pool).write(request)).kind).toBe("stored");
      // B: captured the usual way after A's INSERT; it either commits first or waits for A.
      let b: string | undefined;
      const capturing = capture(services, endpoint.slug, "b").then((id) => (b = id));
      const waitsForA = async () =>
        Number((await database.query<{ n: string }>("select count(*) as n from pg_locks where locktype = 'advisory' and not granted"))[0]!.n) > 0;
      await waitFor(async () => b !== undefined || (await waitsForA()), "B to commit or to wait for A");
      // The client has what the stream sent by now (B, had it committed), then drops.
      if (b !== undefined) seen.push(...(await take(first, 1)));
      live.abort();
      await held.query("commit");
      await capturing;

      const resumed = await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, after: seen.at(-1)!.id, signal: connection().signal });
      const next = resumed.next();
      const c = await capture(services, endpoint.slug, "c");
      const rest: FullEvent[] = [];
      for (let result = next; !rest.some((event) => event.id === c); result = resumed.next()) rest.push(...(await take(resumed, 1, result)));
      // Every event once across both connections, in the order they committed.
      expect([...seen, ...rest].map((event) => event.id)).toEqual([z, a, b, c]);
    } finally {
      held.release();
      await pool.end();
    }
  });

  test("resumed after an id, sends what was captured since in order, then new events, each once", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "resumed" });
    const earlier = [await capture(services, endpoint.slug, "1"), await capture(services, endpoint.slug, "2"), await capture(services, endpoint.slug, "3")];
    const stream = await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, after: earlier[1], signal: connection().signal });
    // Neither the named event nor those stored before it come again (late commits: packages/http/test/stream-resume.test.ts).
    const backlog = await take(stream, 1);
    expect(backlog.map((event) => event.id)).toEqual([earlier[2]]);
    expect(backlog.map((event) => event.body.toString())).toEqual(["3"]);
    const pending = stream.next();
    const live = await capture(services, endpoint.slug, "4");
    const [event] = await take(stream, 1, pending);
    expect(event!.id).toBe(live);
  });

  test("ends when its connection closes, giving its slot back", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "closed" });
    const connected = connection();
    const stream = await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, signal: connected.signal });
    expect(streamSlotsOf(services.bus).open(user.id)).toBe(1);
    const pending = stream.next();
    connected.abort();
    expect(await pending).toEqual({ done: true, value: undefined });
    expect(streamSlotsOf(services.bus).open(user.id)).toBe(0);
  });

  test("refuses another team's endpoint and a missing one as not found", async ({ services, user, other }) => {
    const theirs = await createEndpoint(services, { teamId: other.teamId, name: "theirs" });
    const message = (id: string) => `There is no endpoint with the id ${id}. It may have been deleted; list your endpoints to find the right id.`;
    await expectRefused(openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: theirs.id, signal: connection().signal }), "not_found", message(theirs.id));
    await expectRefused(openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: MISSING_ID, signal: connection().signal }), "not_found", message(MISSING_ID));
    expect(streamSlotsOf(services.bus).open(user.id)).toBe(0);
  });
});
