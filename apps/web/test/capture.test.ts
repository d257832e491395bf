import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isUuid, uuidVersion, type HeaderList } from "@rehook/core";
import { deleteEndpoint } from "@rehook/services";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

const MAX_PAYLOAD = 64 * 1024;

let t: TestServer;
let slug: string;

beforeAll(async () => {
  t = await startTestServer({ MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD), MAX_HEADER_COUNT: "100" });
  slug = (await t.createEndpoint("Capture tests")).slug;
});
afterAll(() => t.close());

interface StoredEvent {
  id: string;
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
  content_type: string | null;
  size_bytes: number;
  client_ip: string | null;
  source: string;
  event_type: string;
  status: string;
  received_at: Date;
}

async function storedEvent(id: string): Promise<StoredEvent> {
  const [row] = await t.db.query<StoredEvent>("select * from events where id = $1", [id]);
  if (!row) throw new Error(`event ${id} is not stored`);
  return row;
}

function capture(body: Buffer, headers: Array<[string, string]>, target = `/api/webhook/${slug}`, method = "POST") {
  return rawRequest(t.rehook.url, [head(method, target, [...headers, ["Content-Length", String(body.length)]]), body]);
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

describe("capture URL", () => {
  it("answers 200 {received, eventId} with a UUIDv7 only once the row is committed", async () => {
    const response = await capture(Buffer.from('{"type":"invoice.paid"}'), [["Content-Type", "application/json"]]);
    expect(response.status).toBe(200);
    const answer = JSON.parse(response.body) as { received: boolean; eventId: string };
    expect(answer.received).toBe(true);
    expect(isUuid(answer.eventId)).toBe(true);
    expect(uuidVersion(answer.eventId)).toBe(7);
    const event = await storedEvent(answer.eventId);
    expect(event.status).toBe("captured");
    expect(event.event_type).toBe("invoice.paid");
    expect(event.received_at.getUTCMilliseconds()).toBe(event.received_at.getTime() % 1000);
  });

  it("stores binary bodies byte for byte: NUL bytes, invalid UTF-8, every byte value", async () => {
    const body = Buffer.concat([Buffer.from([0, 0, 0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);
    const response = await capture(body, [["Content-Type", "application/octet-stream"]]);
    expect(response.status).toBe(200);
    const event = await storedEvent(JSON.parse(response.body).eventId);
    expect(sha256(event.body)).toBe(sha256(body));
    expect(event.size_bytes).toBe(body.length);
    expect(event.content_type).toBe("application/octet-stream");
  });

  it("stores a gzip body with its Content-Encoding, still compressed", async () => {
    const body = gzipSync(Buffer.from(JSON.stringify({ type: "compressed", items: Array(50).fill("x") })));
    const response = await capture(body, [["Content-Type", "application/json"], ["Content-Encoding", "gzip"]]);
    const event = await storedEvent(JSON.parse(response.body).eventId);
    expect(event.body.equals(body)).toBe(true);
    expect(event.headers).toContainEqual(["Content-Encoding", "gzip"]);
  });

  it("keeps every header in its original order, case and duplicates", async () => {
    const headers: Array<[string, string]> = [
      ["Content-Type", "application/json"],
      ["X-Dup", "first"],
      ["x-lower", "kept as sent"],
      ["Content-Type", "text/plain"],
      ["X-Dup", "second"],
      ["Set-Cookie", "a=1"],
      ["Set-Cookie", "b=2"],
    ];
    const response = await capture(Buffer.from("{}"), headers);
    const event = await storedEvent(JSON.parse(response.body).eventId);
    expect(event.headers).toEqual([["Host", "localhost"], ...headers, ["Content-Length", "2"], ["Connection", "close"]]);
  });

  it("captures every method, the sub-path and the raw query string", async () => {
    for (const method of ["GET", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
      const response = await capture(Buffer.alloc(0), [], `/api/webhook/${slug}/github/push?a=1&b=%20x&a=2`, method);
      expect(response.status, method).toBe(200);
      const event = await storedEvent(JSON.parse(response.body).eventId);
      expect(event).toMatchObject({ method, path: "/github/push", query: "a=1&b=%20x&a=2", size_bytes: 0 });
      expect(event.client_ip).toMatch(/127\.0\.0\.1/);
    }
  });

  it("answers a CORS preflight without storing it", async () => {
    const before = await t.db.query("select count(*)::int as n from events");
    const response = await rawRequest(t.rehook.url, [
      head("OPTIONS", `/api/webhook/${slug}`, [["Origin", "https://app.example"], ["Access-Control-Request-Method", "POST"], ["Access-Control-Request-Headers", "content-type"]]),
    ]);
    expect(response.status).toBe(204);
    expect(response.headers["access-control-allow-origin"]).toBe("*");
    expect(response.headers["access-control-allow-headers"]).toBe("content-type");
    expect(await t.db.query("select count(*)::int as n from events")).toEqual(before);
  });

  it("answers 404 with a JSON error for an unknown slug", async () => {
    const response = await capture(Buffer.from("{}"), [["Content-Type", "application/json"]], "/api/webhook/unknown-abcd1234");
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body)).toEqual({ error: { code: "not_found", message: "There is no endpoint with the slug unknown-abcd1234. Check the slug, or list your endpoints to find it." } });
  });

  it("answers 404 for a malformed slug without reading its body", async () => {
    for (const target of ["/api/webhook/NOT-A-SLUG", "/api/webhook/short-abc", "/api/webhook/%00-abcd1234"]) {
      const response = await rawRequest(t.rehook.url, [head("POST", target, [["Content-Length", String(10 * MAX_PAYLOAD)]])]);
      expect(response.status, target).toBe(404);
    }
    const root = await capture(Buffer.from("{}"), [], "/api/webhook/");
    expect(root.status).toBe(404);
  });

  it("takes a body exactly at the limit", async () => {
    const response = await capture(Buffer.alloc(MAX_PAYLOAD, 7), []);
    expect(response.status).toBe(200);
  });

  it("answers 413 for a declared Content-Length one byte over the limit, without reading the body", async () => {
    const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [["Content-Length", String(MAX_PAYLOAD + 1)]])]);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.code).toBe("payload_too_large");
  });

  it("answers 413 for a chunked body that grows past the limit", async () => {
    const chunk = Buffer.alloc(16 * 1024, 1);
    const chunked = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]);
    const parts: Array<Buffer | string> = [head("POST", `/api/webhook/${slug}`, [["Transfer-Encoding", "chunked"]])];
    for (let i = 0; i < 8; i += 1) parts.push(chunked(chunk)); // 128 KiB against a 64 KiB cap
    parts.push("0\r\n\r\n");
    const response = await rawRequest(t.rehook.url, parts, { pauseMs: 5 });
    expect(response.status).toBe(413);
  });

  it("answers 413 at once for a Content-Length that claims more than the limit but sends little", async () => {
    const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [["Content-Length", String(10 * MAX_PAYLOAD)]]), "just a few bytes"]);
    expect(response.status).toBe(413);
  });

  it("answers 431 for too many headers", async () => {
    const headers = Array.from({ length: 150 }, (_, i): [string, string] => [`X-H${i}`, "v"]);
    const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [...headers, ["Content-Length", "0"]])]);
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body).error.code).toBe("headers_too_large");
  });

  it("answers 431 with a JSON body for headers larger than node's limit", async () => {
    const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [["X-Big", "x".repeat(20_000)]])]);
    expect(response.status).toBe(431);
    expect(JSON.parse(response.body).error.code).toBe("headers_too_large");
  });

  it("marks events of an endpoint with a destination as pending", async () => {
    const forwarding = await t.createEndpoint("Forwarding", "https://example.com/hooks");
    const response = await capture(Buffer.from("{}"), [], `/api/webhook/${forwarding.slug}`);
    expect((await storedEvent(JSON.parse(response.body).eventId)).status).toBe("pending");
  });

  it("stores every one of many concurrent captures, each with its own row", async () => {
    const count = 400;
    const responses = await Promise.all(
      Array.from({ length: count }, (_, i) => capture(Buffer.from(JSON.stringify({ type: "burst", i })), [["Content-Type", "application/json"]])),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    const ids = responses.map((r) => JSON.parse(r.body).eventId as string);
    expect(new Set(ids).size).toBe(count);
    const rows = await t.db.query<{ body: Buffer; id: string }>("select id, body from events where id = any($1::uuid[])", [ids]);
    expect(rows).toHaveLength(count);
    const bodies = new Map(rows.map((row) => [row.id, JSON.parse(row.body.toString()).i as number]));
    ids.forEach((id, i) => expect(bodies.get(id)).toBe(i));
  });
});

describe("deleting an endpoint", () => {
  it("makes its capture URL answer 404 at once, on every instance, and purges its events", async () => {
    const other = await startTestServer({}, t.db); // a second instance on the same database
    try {
      const endpoint = await t.createEndpoint("Short-lived");
      const first = await capture(Buffer.from("{}"), [], `/api/webhook/${endpoint.slug}`);
      expect(first.status).toBe(200);
      // Deleted through the other instance; this one has no cache to invalidate.
      await deleteEndpoint({ orm: other.rehook.database.orm }, { teamId: t.teamId, endpoint: { slug: endpoint.slug } }).catch(async () => {
        await deleteEndpoint({ orm: t.rehook.database.orm }, { teamId: t.teamId, endpoint: { slug: endpoint.slug } });
      });
      const after = await capture(Buffer.from("{}"), [], `/api/webhook/${endpoint.slug}`);
      expect(after.status).toBe(404);
      // Its events go in the background (the purge job of either instance).
      await waitFor(async () => (await t.db.query("select 1 from events where id = $1", [JSON.parse(first.body).eventId])).length === 0, "the purge of its events");
    } finally {
      await other.close();
    }
  });

  it("is refused for another user's endpoint", async () => {
    const endpoint = await t.createEndpoint("Mine");
    const stranger = await startTestServer({}, t.db);
    try {
      await expect(deleteEndpoint({ orm: stranger.rehook.database.orm }, { teamId: stranger.teamId, endpoint: { slug: endpoint.slug } })).rejects.toThrow(/no endpoint/);
      expect((await capture(Buffer.from("{}"), [], `/api/webhook/${endpoint.slug}`)).status).toBe(200);
    } finally {
      await stranger.close();
    }
  });
});

describe("other routes", () => {
  it("GET /healthz answers ok", async () => {
    const response = await fetch(`${t.rehook.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("GET /readyz answers ready once migrations are applied and the database answers", async () => {
    const response = await fetch(`${t.rehook.url}/readyz`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toEqual({ status: "ready" });
  });

  it("unknown /api/ paths answer a JSON 404; other unknown paths get the dashboard's 404 page", async () => {
    const api = await fetch(`${t.rehook.url}/api/nope`);
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const page = await fetch(`${t.rehook.url}/nope`);
    expect(page.status).toBe(404);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
  });
});
