import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { head, rawRequest, type RawResponse } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let sink: Sink;
let forwarded: { id: string; slug: string };

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  sink = await startSink((_req, res) => res.end("ok"));
  forwarded = await t.createEndpoint("Hostile input", `http://127.0.0.1:${sink.port}/hooks`);
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

function send(target: string, body: Buffer | string = "", headers: Array<[string, string]> = []): Promise<RawResponse> {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return rawRequest(t.rehook.url, [head("POST", target, [...headers, ["Content-Length", String(bytes.length)]]), bytes]);
}

async function eventCount(endpointId: string): Promise<number> {
  const [row] = await t.db.query<{ count: string }>("select count(*) from events where endpoint_id = $1", [endpointId]);
  return Number(row!.count);
}

interface StoredLabels {
  source: string;
  event_type: string;
  status: string;
}

async function labels(eventId: string): Promise<StoredLabels> {
  const [row] = await t.db.query<StoredLabels>("select source, event_type, status from events where id = $1", [eventId]);
  if (!row) throw new Error(`event ${eventId} is not stored`);
  return row;
}

describe("sub-paths with dot segments", () => {
  const dotted = [
    "/..",
    "/../admin",
    "/a/../../admin",
    "/.",
    "/./admin",
    "/a/.",
    "/%2e%2e/admin",
    "/%2E%2E/admin",
    "/%2e%2E/admin",
    "/.%2e/admin",
    "/.%2E/admin",
    "/%2e./admin",
    "/%2E./admin",
    "/%2e",
    "/a/%2e%2e%2fadmin",
    "/a%2f..%2fadmin",
    "/a%2F..%2F..%2Fadmin",
    "/a%2f%2e%2e%2fadmin",
    "/a\\..\\admin",
    "/a%5c..%5cadmin",
    "/%252e%252e/admin",
    "/..;/admin",
    "/../admin?x=1",
  ];

  it.each(dotted)("refuses %s with 400 bad_request, before storing or forwarding anything", async (subPath) => {
    const response = await send(`/api/webhook/${forwarded.slug}${subPath}`, '{"type":"escape"}', [["Content-Type", "application/json"]]);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ error: { code: "bad_request", message: expect.stringContaining('"." or ".." segment') } });
    expect(await eventCount(forwarded.id)).toBe(0);
  });

  it("still captures and forwards names that only look like dot segments, under the base path", async () => {
    for (const subPath of ["/.well-known/hook", "/...", "/v1..2/x", "/%2e%2e%2e"]) {
      const response = await send(`/api/webhook/${forwarded.slug}${subPath}`, "{}", [["Content-Type", "application/json"]]);
      expect(response.status, subPath).toBe(200);
    }
    await waitFor(() => sink.received.length === 4, "the four captures to be forwarded");
    // Nothing refused earlier reached the destination; everything that did lies under /hooks/.
    expect(sink.received.map((request) => request.url).sort()).toEqual(["/hooks/%2e%2e%2e", "/hooks/...", "/hooks/.well-known/hook", "/hooks/v1..2/x"]);
  });

  it("never forwards an event stored before the rule with such a path: the attempt fails with the reason", async () => {
    const before = sink.received.length;
    const eventId = uuidv7();
    // As an older Rehook stored it: pending, unleased, so any instance's recovery loop claims it.
    await t.db.query(
      `with event as (
         insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, client_ip,
                             source, event_type, status, destination_url)
         select $1, endpoint_id, now(), 'POST', '/%2e%2e/admin', '', '[]', ''::bytea, null, 0, null, 'unknown', 'unknown', 'pending', url
         from destinations where endpoint_id = $2 and position = 0
         returning id
       )
       insert into deliveries (event_id, destination_id, endpoint_id, status, attempts)
       select event.id, d.id, d.endpoint_id, 'pending', 0 from event, destinations d where d.endpoint_id = $2 and d.position = 0`,
      [eventId, forwarded.id],
    );
    let row: { status: string; error: string | null } | undefined;
    await waitFor(async () => {
      [row] = await t.db.query<{ status: string; error: string | null }>("select status, error from events where id = $1", [eventId]);
      return row?.status !== "pending";
    }, "the stored event to be attempted");
    expect(row).toEqual({ status: "failed", error: expect.stringContaining(`could leave the destination's path /hooks`) });
    expect(sink.received.length).toBe(before);
  });
});

describe("poison labels", () => {
  const json: [string, string] = ["Content-Type", "application/json"];
  const form: [string, string] = ["Content-Type", "application/x-www-form-urlencoded"];
  const emojiCut = "x".repeat(199) + "\u{1F600}"; // a 200-unit cut falls inside the emoji

  // JSON.stringify writes NUL and lone surrogates as \u escapes, as a sender's JSON encoder would.
  const poisons: Array<{ name: string; headers: Array<[string, string]>; body: string; source: string; eventType: string }> = [
    { name: "NUL in a JSON type", headers: [json], body: JSON.stringify({ type: "invoice\u0000paid" }), source: "unknown", eventType: "invoice\uFFFDpaid" },
    { name: "a lone surrogate in a JSON event_type", headers: [json], body: JSON.stringify({ event_type: "order\ud800" }), source: "unknown", eventType: "order\uFFFD" },
    { name: "a lone low surrogate in a JSON event", headers: [json], body: JSON.stringify({ event: "\udc00created" }), source: "unknown", eventType: "\uFFFDcreated" },
    { name: "a 200-character cut inside an emoji", headers: [json], body: JSON.stringify({ type: emojiCut }), source: "unknown", eventType: "x".repeat(199) },
    { name: "NUL in a GitHub action", headers: [json, ["X-GitHub-Event", "issues"]], body: JSON.stringify({ action: "op\u0000ened" }), source: "github", eventType: "issues.op\uFFFDened" },
    {
      name: "a lone surrogate in a Slack payload",
      headers: [form, ["X-Slack-Signature", "v0=1"]],
      body: new URLSearchParams({ payload: JSON.stringify({ type: "block_actions\udbff" }) }).toString(),
      source: "slack",
      eventType: "block_actions\uFFFD",
    },
    {
      name: "NUL in a Twilio form field",
      headers: [form, ["X-Twilio-Signature", "s"]],
      body: new URLSearchParams({ MessageStatus: "deli\u0000vered" }).toString(),
      source: "twilio",
      eventType: "message.deli\uFFFDvered",
    },
    {
      name: "a Twilio form field cut inside an emoji",
      headers: [form, ["X-Twilio-Signature", "s"]],
      body: new URLSearchParams({ CallStatus: "c".repeat(194) + "\u{1F4DE}" }).toString(),
      source: "twilio",
      eventType: `call.${"c".repeat(194)}`,
    },
  ];

  it.each(poisons)("stores $name with a sanitised label, and its neighbour in the same batch is unaffected", async (poison) => {
    const endpoint = await t.createEndpoint(`Poison ${poison.name}`);
    const target = `/api/webhook/${endpoint.slug}`;
    // Sent together, so the group-commit writer stores them in one statement.
    const [poisoned, neighbour] = await Promise.all([
      send(target, poison.body, poison.headers),
      send(target, JSON.stringify({ type: "neighbour.ok" }), [json]),
    ]);
    expect(poisoned.status, poisoned.body).toBe(200);
    expect(neighbour.status, neighbour.body).toBe(200);
    expect(await labels(JSON.parse(poisoned.body).eventId)).toEqual({ source: poison.source, event_type: poison.eventType, status: "captured" });
    expect(await labels(JSON.parse(neighbour.body).eventId)).toEqual({ source: "unknown", event_type: "neighbour.ok", status: "captured" });
  });

  it("stores every poison of a burst, with well-formed labels, none answered 503", async () => {
    const endpoint = await t.createEndpoint("Poison burst");
    const target = `/api/webhook/${endpoint.slug}`;
    const responses = await Promise.all([...poisons, ...poisons].map((poison) => send(target, poison.body, poison.headers)));
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200));
    const rows = await t.db.query<{ event_type: string }>("select event_type from events where endpoint_id = $1", [endpoint.id]);
    expect(rows).toHaveLength(poisons.length * 2);
    const wellFormed = /^(?:[^\u0000\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;
    for (const { event_type } of rows) expect(event_type).toMatch(wellFormed);
  });
});
