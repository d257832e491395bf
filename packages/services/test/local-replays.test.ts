import { randomBytes } from "node:crypto";
import { afterEach, describe, expect } from "vitest";
import { uuidv7 } from "@rehook/core";
import { addTeamMember, insertUser } from "@rehook/db";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  createEndpoint,
  handLocalReplayToListener,
  localReplayOutcome,
  openEndpointEventStream,
  recordLocalReplay,
  replayContracts,
  runContract,
  type Services,
  type StreamedItem,
} from "@rehook/services";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// Local replays through `rehook listen`: a stream that asks for them registers as the
// member's listener of its endpoint; the dashboard's Local replay is handed to the member's
// own live listener only (never a teammate's, never another team's), arrives on that stream
// as the stored event with the attempt id, and is recorded "via listen" with the URL it went to.

const streams: AbortController[] = [];
afterEach(() => {
  for (const controller of streams.splice(0)) controller.abort();
});
function connection(): AbortController {
  const controller = new AbortController();
  streams.push(controller);
  return controller;
}

/** The stream's next item, failing after 10 s. */
async function next(stream: AsyncGenerator<StreamedItem>): Promise<StreamedItem> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("nothing arrived on the stream")), 10_000)));
  const result = await Promise.race([stream.next(), limit]).finally(() => clearTimeout(timer));
  if (result.done) throw new Error("the stream ended");
  return result.value;
}

/** A member of the team with this role. */
async function teammate(services: Services, teamId: string, role: "developer" | "viewer") {
  const user = await insertUser(services.orm.em.fork(), { id: uuidv7(), email: `mate-${randomBytes(6).toString("hex")}@example.com`, passwordHash: "unusable" });
  await addTeamMember(services.orm.em.fork(), teamId, user.id, role);
  return user.id;
}

const listeners = (services: Services, endpointId: string) =>
  services.orm.em.fork().getConnection().execute<Array<{ user_id: string }>>("select user_id from local_listeners where endpoint_id = ?", [endpointId]);

describe("Local replays through rehook listen", () => {
  test("go to the member's own listener as the stored event with the attempt id, and are recorded via listen with the listener's URL", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "billing", destinationUrl: "http://127.0.0.1:9/billing" });
    const body = Buffer.from([0x7b, 0x7d, 0x00, 0xff]);
    const eventId = await capture(services, endpoint.slug, body, [["X-Dup", "1"], ["X-Dup", "2"]], { subPath: "/orders" });
    const stream = await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, keyId: uuidv7(), endpointId: endpoint.id, localReplays: true, signal: connection().signal });
    // Registered before the stream is handed back: a replay asked for at once finds it.
    const handoff = await handLocalReplayToListener(services, { teamId: user.teamId, userId: user.id, eventId });
    expect(handoff.handed).toBe(true);
    const attemptId = handoff.handed ? handoff.attemptId : "";
    const item = await next(stream);
    expect(item).toMatchObject({ id: eventId, path: "/orders", headers: [["X-Dup", "1"], ["X-Dup", "2"]], localReplay: { attemptId } });
    expect(item.body.equals(body)).toBe(true);
    expect(await localReplayOutcome(services, { teamId: user.teamId, eventId, attemptId })).toEqual({ attempt: null });

    const recorded = await recordLocalReplay(services, {
      teamId: user.teamId,
      userId: user.id,
      eventId,
      attemptId,
      via: "listen",
      localUrl: "http://127.0.0.1:4000/dev/orders",
      result: { status: 200, body: "ok", latencyMs: 5, error: null },
    });
    expect(recorded).toMatchObject({ id: attemptId, environment: "local", status: "delivered", destinationUrl: "http://127.0.0.1:4000/dev/orders" });
    const [row] = await services.orm.em
      .fork()
      .getConnection()
      .execute<Array<{ local_via: string; destination_id: string | null }>>("select local_via, destination_id from replay_attempts where id = ?", [attemptId]);
    expect(row).toEqual({ local_via: "listen", destination_id: null });
    expect((await localReplayOutcome(services, { teamId: user.teamId, eventId, attemptId })).attempt).toMatchObject({ id: attemptId, responseStatus: 200 });
    // Another team's, or a missing event, is refused.
    await expectRefused(localReplayOutcome(services, { teamId: user.teamId, eventId: MISSING_ID, attemptId }), "not_found");
  });

  test("are never handed to a stream that did not ask, a teammate's listener, or a listener that closed; another team cannot ask", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "shared" });
    const eventId = await capture(services, endpoint.slug, "{}");
    const handOver = () => handLocalReplayToListener(services, { teamId: user.teamId, userId: user.id, eventId });

    // The member's stream without local replays (a script, an older rehook listen): not a listener.
    await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, signal: connection().signal });
    expect(await handOver()).toEqual({ handed: false });

    // A teammate's listener of the same endpoint: a Local replay means the clicking member's machine.
    const mate = await teammate(services, user.teamId, "developer");
    const mates = await openEndpointEventStream(services, { teamId: user.teamId, userId: mate, endpointId: endpoint.id, localReplays: true, signal: connection().signal });
    expect(await handOver()).toEqual({ handed: false });
    // The teammate's stream goes on with events only.
    const nextOfMate = next(mates);
    const later = await capture(services, endpoint.slug, "{}");
    expect(await nextOfMate).toMatchObject({ id: later });
    expect((await nextOfMate).localReplay).toBeUndefined();

    // Another team's member cannot ask for this team's event, nor listen to its endpoint.
    await expectRefused(handLocalReplayToListener(services, { teamId: other.teamId, userId: other.id, eventId }), "not_found");
    await expectRefused(openEndpointEventStream(services, { teamId: other.teamId, userId: other.id, endpointId: endpoint.id, localReplays: true, signal: connection().signal }), "not_found");

    // The member's own listener, then closed: its row goes, and nothing is handed to it.
    const mine = connection();
    await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, localReplays: true, signal: mine.signal });
    expect((await handOver()).handed).toBe(true);
    mine.abort();
    await waitFor(async () => !(await listeners(services, endpoint.id)).some((row) => row.user_id === user.id), "the closed listener's row to go");
    expect(await handOver()).toEqual({ handed: false });
  });

  test("recordLocal says how a local replay got there: as given, else listen for an API key and browser for a session; local_url must be http(s) without credentials", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "records", destinationUrl: "http://127.0.0.1:9/billing" });
    const eventId = await capture(services, endpoint.slug, "{}");
    const record = (actor: typeof user.actor, input: Record<string, unknown>) =>
      runContract(replayContracts.recordLocalContract, services, actor, { eventId, status: 200, latencyMs: 1, ...input }) as Promise<{ id: string; destinationUrl: string }>;
    const via = async (id: string) =>
      (await services.orm.em.fork().getConnection().execute<Array<{ local_via: string }>>("select local_via from replay_attempts where id = ?", [id]))[0]!.local_via;

    const byKey = await record({ ...user.actor, keyId: uuidv7() }, { localUrl: "http://127.0.0.1:4000/dev" });
    expect(await via(byKey.id)).toBe("listen");
    expect(byKey.destinationUrl).toBe("http://127.0.0.1:4000/dev");
    const bySession = await record(user.actor, { localPort: 4001 });
    expect(await via(bySession.id)).toBe("browser");
    expect(bySession.destinationUrl).toBe("http://localhost:4001/billing");
    expect(await via((await record(user.actor, { via: "listen", localUrl: "https://dev.internal/hooks" })).id)).toBe("listen");

    await expectRefused(record(user.actor, { localUrl: "javascript:alert(1)" }), "validation_failed", /local_url must be the http or https URL/);
    await expectRefused(record(user.actor, { localUrl: "http://me:secret@localhost:3000/" }), "validation_failed", /without user:password@/);
    await expectRefused(record(user.actor, { via: "carrier pigeon" }), "validation_failed", /^Via must be one of browser, listen\./);
  });
});
