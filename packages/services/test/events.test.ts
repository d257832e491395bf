import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import type { FixtureUser } from "@rehook/vitest-config/service-fixtures";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import {
  ATTEMPT_BODY_PREVIEW_BYTES,
  BODY_DOWNLOAD_CHUNK_BYTES,
  createEndpoint,
  deleteEvent,
  getEvent,
  getEventAttempt,
  listEvents,
  MAX_EVENT_OFFSET,
  openEventBody,
  openLiveEvents,
  PAYLOAD_PREVIEW_BYTES,
  replayEvent,
  streamSlotsOf,
  type EventSummary,
  type Services,
} from "@rehook/services";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// One team's events on the running graph: the list's input checks and offset pages, one
// event with its answer and attempts (large bodies cut to a preview, never inside a UTF-8
// character), a body downloaded whole a chunk at a time, deletes, and the live feed. Another
// team's event always answers as missing. Listing by cursor, filters and search at scale are
// in event-storage.test.ts and search-index.test.ts.

const noEvent = (id: string) => `There is no event with the id ${id}. It may have been deleted already.`;

/** Answers 200 with the body the request's path asks for: /big (a long text answer) or "ok". */
let sink: Sink;
const bigAnswer = `${"a".repeat(ATTEMPT_BODY_PREVIEW_BYTES - 1)}é and more`;
beforeAll(async () => {
  sink = await startSink((req, res) => res.end(req.url === "/big" ? bigAnswer : "ok"));
});
afterAll(() => sink.close());

const streams: AbortController[] = [];
afterEach(() => {
  for (const controller of streams.splice(0)) controller.abort();
});

async function delivered(services: Services, teamId: string, eventId: string): Promise<void> {
  await waitFor(async () => (await getEvent(services, { teamId, eventId })).status === "delivered", `event ${eventId} to be delivered`);
}

describe("listEvents", () => {
  test("pages by offset as well as by cursor, with the exact total", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "paged" });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push(await capture(services, endpoint.slug, `{"n":${i}}`));
    const newestFirst = [...ids].reverse();
    const page = await listEvents(services, { teamId: user.teamId, limit: 2, offset: 2, withTotal: true });
    expect(page.events.map((event) => event.id)).toEqual(newestFirst.slice(2, 4));
    expect(page.nextCursor).toBe(newestFirst[3]);
    expect(page.total).toEqual({ value: 5, capped: false });
    const last = await listEvents(services, { teamId: user.teamId, limit: 2, before: page.nextCursor! });
    expect(last).toEqual({ events: [expect.objectContaining({ id: newestFirst[4] })], nextCursor: null });
  });

  test("lists only the team's events: another team's endpoint filter finds nothing", async ({ services, user, other }) => {
    const mine = await createEndpoint(services, { teamId: user.teamId, name: "mine" });
    await capture(services, mine.slug, "{}");
    expect(await listEvents(services, { teamId: other.teamId, withTotal: true })).toEqual({ events: [], nextCursor: null, total: { value: 0, capped: false } });
    expect((await listEvents(services, { teamId: other.teamId, endpointId: mine.id })).events).toEqual([]);
  });

  // The messages are the public API's (its 400s stay as they were): each names its field.
  test("refuses a bad filter or page with the field's message", async ({ services, user }) => {
    const list = (input: Record<string, unknown>) => listEvents(services, { teamId: user.teamId, ...input });
    await expectRefused(list({ offset: 10, before: MISSING_ID }), "validation_failed", /give either offset or cursor, not both/i);
    await expectRefused(list({ offset: MAX_EVENT_OFFSET + 1 }), "validation_failed", new RegExp(`offset is at most ${MAX_EVENT_OFFSET}: page deeper with cursor \\(meta\\.next_cursor\\)`, "i"));
    await expectRefused(list({ before: "nope" }), "validation_failed", /the cursor is not one this server gave/i);
    await expectRefused(list({ limit: 0 }), "validation_failed");
    await expectRefused(list({ limit: 101 }), "validation_failed");
    await expectRefused(list({ status: "lost" }), "validation_failed", /^Status: invalid option: expected one of "captured"\|"pending"\|"delivered"\|"failed"/);
    await expectRefused(list({ endpointId: "nope" }), "validation_failed", /^Endpoint ID: invalid UUID/);
    await expectRefused(list({ search: "" }), "validation_failed", /^Search: too small/);
    await expectRefused(list({ source: "a\u0000b" }), "validation_failed", /NUL/);
    await expectRefused(list({ eventType: "e".repeat(201) }), "validation_failed", /^Event type: too big: expected string to have <=200 characters/);
  });
});

describe("getEvent", () => {
  test("a captured event has no answer yet; a delivered one has its answer and attempts", async ({ services, user }) => {
    const inbox = await createEndpoint(services, { teamId: user.teamId, name: "inbox" });
    const captured = await capture(services, inbox.slug, '{"a":1}', [["Content-Type", "application/json"]], { subPath: "/x", query: "y=1" });
    expect(await getEvent(services, { teamId: user.teamId, eventId: captured })).toMatchObject({
      id: captured,
      endpointId: inbox.id,
      endpointName: "inbox",
      endpointSlug: inbox.slug,
      status: "captured",
      path: "/x",
      query: "y=1",
      sizeBytes: 7,
      bodyTruncated: false,
      contentType: "application/json",
      response: null,
      attempts: [],
      replayCount: 0,
    });

    const forwarding = await createEndpoint(services, { teamId: user.teamId, name: "forwarding", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const sent = await capture(services, forwarding.slug, "{}");
    await delivered(services, user.teamId, sent);
    const event = await getEvent(services, { teamId: user.teamId, eventId: sent });
    expect(event.response).toMatchObject({ status: 200, truncated: false, error: null, latencyMs: expect.any(Number) });
    expect(Buffer.from(event.response!.body!).toString()).toBe("ok");
    expect(event.attempts).toEqual([expect.objectContaining({ attempt: 1, outcome: "delivered", responseStatus: 200 })]);
    expect(event.destinationUrl).toBe(`http://127.0.0.1:${sink.port}/in`);
  });

  test("carries only a preview of a large body, cut before a split UTF-8 character", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "large" });
    const body = `${"a".repeat(PAYLOAD_PREVIEW_BYTES - 1)}é${"b".repeat(1000)}`;
    const id = await capture(services, endpoint.slug, body, [["Content-Type", "text/plain"]]);
    const event = await getEvent(services, { teamId: user.teamId, eventId: id });
    expect(event.bodyTruncated).toBe(true);
    expect(event.sizeBytes).toBe(Buffer.byteLength(body));
    expect(Buffer.from(event.body).equals(Buffer.from("a".repeat(PAYLOAD_PREVIEW_BYTES - 1)))).toBe(true);
  });

  test("another team's event, a missing and a malformed id answer as missing", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "private" });
    const id = await capture(services, endpoint.slug, "{}");
    await expectRefused(getEvent(services, { teamId: other.teamId, eventId: id }), "not_found", noEvent(id));
    await expectRefused(getEvent(services, { teamId: user.teamId, eventId: MISSING_ID }), "not_found", noEvent(MISSING_ID));
    await expectRefused(getEvent(services, { teamId: user.teamId, eventId: "nope" }), "not_found", noEvent("nope"));
  });
});

describe("getEventAttempt", () => {
  test("carries the start of a long answer, cut before a split UTF-8 character", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "chatty", destinationUrl: `http://127.0.0.1:${sink.port}/big` });
    const id = await capture(services, endpoint.slug, "{}");
    await delivered(services, user.teamId, id);
    const attempt = await getEventAttempt(services, { teamId: user.teamId, eventId: id, attempt: 1 });
    expect(attempt).toMatchObject({ attempt: 1, outcome: "delivered", responseStatus: 200, bodyTruncated: true });
    expect(Buffer.from(attempt.responseBody!).equals(Buffer.from("a".repeat(ATTEMPT_BODY_PREVIEW_BYTES - 1)))).toBe(true);
    await expectRefused(getEventAttempt(services, { teamId: other.teamId, eventId: id, attempt: 1 }), "not_found", `Event ${id} has no attempt 1. Open the event to see its attempts.`);
  });
});

describe("openEventBody", () => {
  test("downloads the body whole, byte for byte, a chunk at a time, with its name, type and encoding", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "download" });
    const body = Buffer.alloc(BODY_DOWNLOAD_CHUNK_BYTES * 2 + 123);
    for (let i = 0; i < body.length; i += 1) body[i] = (i * 31) % 256;
    const id = await capture(services, endpoint.slug, body, [
      ["Content-Type", "application/json"],
      ["Content-Encoding", "gzip"],
    ]);
    const download = await openEventBody(services, { teamId: user.teamId, eventId: id });
    expect(download).toMatchObject({ sizeBytes: body.length, contentType: "application/json", contentEncoding: "gzip", fileName: `event-${id}.json.gz` });
    const chunks: Buffer[] = [];
    for await (const chunk of download.chunks) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.length)).toEqual([BODY_DOWNLOAD_CHUNK_BYTES, BODY_DOWNLOAD_CHUNK_BYTES, 123]);
    expect(Buffer.concat(chunks).equals(body)).toBe(true);
  });

  test("fails with not_found when the event is deleted during the download; another team's is missing", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "vanishing" });
    const id = await capture(services, endpoint.slug, Buffer.alloc(BODY_DOWNLOAD_CHUNK_BYTES + 1, 1));
    await expectRefused(openEventBody(services, { teamId: other.teamId, eventId: id }), "not_found", noEvent(id));
    const download = await openEventBody(services, { teamId: user.teamId, eventId: id });
    const first = await download.chunks.next();
    expect(first.value).toHaveLength(BODY_DOWNLOAD_CHUNK_BYTES);
    await deleteEvent(services, { teamId: user.teamId, eventId: id });
    await expectRefused(download.chunks.next(), "not_found", `The event ${id} was deleted during the download. Its body is no longer stored.`);
  });
});

describe("deleteEvent", () => {
  test("deletes the event with its attempts and replays, out of the counts; a second delete finds nothing", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "deleting", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const id = await capture(services, endpoint.slug, "{}");
    await delivered(services, user.teamId, id);
    await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId: id, environment: "original" });
    await deleteEvent(services, { teamId: user.teamId, eventId: id });
    await expectRefused(getEvent(services, { teamId: user.teamId, eventId: id }), "not_found");
    expect(await database.query("select 1 from delivery_attempts where event_id = $1 union all select 1 from replay_attempts where event_id = $1", [id])).toEqual([]);
    expect((await listEvents(services, { teamId: user.teamId, withTotal: true })).total).toEqual({ value: 0, capped: false });
    expect(await eventCountMismatches(database)).toEqual([]);
    await expectRefused(deleteEvent(services, { teamId: user.teamId, eventId: id }), "not_found", noEvent(id));
  });

  test("another team's event answers as missing and stays", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "kept" });
    const id = await capture(services, endpoint.slug, "{}");
    await expectRefused(deleteEvent(services, { teamId: other.teamId, eventId: id }), "not_found", noEvent(id));
    expect((await getEvent(services, { teamId: user.teamId, eventId: id })).id).toBe(id);
  });
});

describe("openLiveEvents", () => {
  async function live(services: Services, user: FixtureUser, filter: Parameters<typeof openLiveEvents>[1]["filter"] = {}) {
    const controller = new AbortController();
    streams.push(controller);
    const feed = await openLiveEvents(services, { teamId: user.teamId, userId: user.id, filter, signal: controller.signal });
    return { feed, controller };
  }

  /** Batches of the feed until `until` holds for the rows seen, with a time limit. */
  async function rowsUntil(feed: AsyncGenerator<EventSummary[]>, until: (rows: EventSummary[]) => boolean, first?: Promise<IteratorResult<EventSummary[]>>): Promise<EventSummary[]> {
    const rows: EventSummary[] = [];
    let next = first ?? feed.next();
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the feed showed only ${JSON.stringify(rows.map((row) => [row.id, row.status]))}`)), 10_000)));
      const result = await Promise.race([next, limit]).finally(() => clearTimeout(timer));
      if (result.done) throw new Error("the feed ended");
      rows.push(...result.value);
      if (until(rows)) return rows;
      next = feed.next();
    }
  }

  test("shows the team's new events and their status changes, none of another team's", async ({ services, user, other }) => {
    const { feed } = await live(services, user);
    const first = feed.next();
    const theirs = await createEndpoint(services, { teamId: other.teamId, name: "theirs" });
    const otherId = await capture(services, theirs.slug, "{}");
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "live", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const id = await capture(services, endpoint.slug, "{}");
    const rows = await rowsUntil(feed, (seen) => seen.some((row) => row.id === id && row.status === "delivered"), first);
    expect(rows.every((row) => row.id === id)).toBe(true);
    expect(rows.map((row) => row.id)).not.toContain(otherId);
  });

  test("applies its filter: status, endpoint and search", async ({ services, user }) => {
    const quiet = await createEndpoint(services, { teamId: user.teamId, name: "quiet" });
    const loud = await createEndpoint(services, { teamId: user.teamId, name: "loud", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const byEndpoint = await live(services, user, { endpointId: quiet.id });
    const bySearch = await live(services, user, { search: "needle" });
    const byStatus = await live(services, user, { status: "delivered" });
    const pending = [byEndpoint.feed.next(), bySearch.feed.next(), byStatus.feed.next()] as const;
    const loudId = await capture(services, loud.slug, '{"x":"haystack"}');
    const quietId = await capture(services, quiet.slug, '{"x":"needle"}');
    expect((await rowsUntil(byEndpoint.feed, (rows) => rows.length > 0, pending[0])).map((row) => row.id)).toEqual([quietId]);
    expect((await rowsUntil(bySearch.feed, (rows) => rows.length > 0, pending[1])).map((row) => row.id)).toEqual([quietId]);
    const deliveredRows = await rowsUntil(byStatus.feed, (rows) => rows.length > 0, pending[2]);
    expect(deliveredRows.map((row) => [row.id, row.status])).toEqual([[loudId, "delivered"]]);
  });

  test("checks its filter before taking a slot, and gives the slot back when it ends", async ({ services, user }) => {
    await expectRefused(openLiveEvents(services, { teamId: user.teamId, userId: user.id, filter: { search: "" }, signal: new AbortController().signal }), "validation_failed", /^Search: too small/);
    expect(streamSlotsOf(services.bus).open(user.id)).toBe(0);
    const { feed, controller } = await live(services, user);
    expect(streamSlotsOf(services.bus).open(user.id)).toBe(1);
    const next = feed.next();
    controller.abort();
    expect(await next).toEqual({ done: true, value: undefined });
    expect(streamSlotsOf(services.bus).open(user.id)).toBe(0);
  });
});
