import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import type { ExportedEvent } from "@rehook/core";
import { HAR_1_2_SCHEMA } from "../src/export/har-schema.js";
import { harEntry, harStart, HAR_END, ndjsonLine } from "../src/index.js";

const isHar12 = new Ajv2020({ strict: false, validateFormats: false }).compile(HAR_1_2_SCHEMA);

const event = (overrides: Partial<ExportedEvent> = {}): ExportedEvent => ({
  id: "0190f5b2-0000-7000-8000-000000000001",
  endpointId: "0190f5b2-0000-7000-8000-0000000000e1",
  endpointSlug: "orders-x1",
  method: "POST",
  path: "/stripe/v1",
  query: "a=1&b=two%20words&a=3",
  headers: [
    ["Content-Type", "application/json"],
    ["X-Seq", "1"],
    ["x-seq", "2"],
  ],
  body: new TextEncoder().encode('{"ok":true}'),
  contentType: "application/json",
  source: "stripe",
  eventType: "charge.succeeded",
  status: "delivered",
  signature: null,
  receivedAt: new Date("2026-01-02T03:04:05.678Z"),
  response: { status: 202, headers: [["content-type", "text/plain"]], body: new TextEncoder().encode("thanks"), truncated: false },
  latencyMs: 42,
  error: null,
  ...overrides,
});

describe("harEntry", () => {
  it("writes documents that HAR 1.2 accepts: text and binary bodies, an answer and none, an error; custom fields only with _", () => {
    const binary = new Uint8Array([0xff, 0x00, 0xfe, 0x80, 0x41]);
    const entries = [
      harEntry(event(), "http://h"),
      harEntry(event({ body: binary, contentType: null, headers: [], response: { status: 200, headers: [], body: binary, truncated: false } }), "http://h"),
      harEntry(event({ path: "", query: "", body: new Uint8Array(), response: null, latencyMs: null, status: "failed", error: "connect ECONNREFUSED" }), "http://h"),
    ];
    const document = JSON.parse(`${harStart("1.2.3")}${entries.map((entry) => JSON.stringify(entry)).join(",")}${HAR_END}`) as unknown;
    expect(isHar12(document), JSON.stringify(isHar12.errors)).toBe(true);
    // The schema does refuse what HAR 1.2 does not have: postData's encoding (before issue 41) is not a field of it.
    const withEncoding = structuredClone(document) as { log: { entries: Array<{ request: { postData: Record<string, unknown> } }> } };
    withEncoding.log.entries[1]!.request.postData = { mimeType: "application/octet-stream", text: "/wD+gEE=", encoding: "base64" };
    expect(isHar12(withEncoding)).toBe(false);
  });

  it("has the HAR 1.2 shape, the full capture URL with sub-path and query, and headers in order", () => {
    const entry = harEntry(event(), "https://hooks.example");
    expect(entry.startedDateTime).toBe("2026-01-02T03:04:05.678Z");
    expect(entry.time).toBe(42);
    expect(entry.request).toEqual({
      method: "POST",
      url: "https://hooks.example/api/webhook/orders-x1/stripe/v1?a=1&b=two%20words&a=3",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [
        { name: "Content-Type", value: "application/json" },
        { name: "X-Seq", value: "1" },
        { name: "x-seq", value: "2" },
      ],
      queryString: [
        { name: "a", value: "1" },
        { name: "b", value: "two words" },
        { name: "a", value: "3" },
      ],
      postData: { mimeType: "application/json", text: '{"ok":true}' },
      headersSize: -1,
      bodySize: 11,
    });
    expect(entry.response).toEqual({
      status: 202,
      statusText: "Accepted",
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: [{ name: "content-type", value: "text/plain" }],
      content: { size: 6, mimeType: "text/plain", text: "thanks" },
      redirectURL: "",
      headersSize: -1,
      bodySize: 6,
    });
    expect(entry.cache).toEqual({});
    expect(entry.timings).toEqual({ send: 0, wait: 42, receive: 0 });
  });

  it("writes a body that is not UTF-8 text as base64", () => {
    const bytes = new Uint8Array([0xff, 0x00, 0xfe, 0x80, 0x41]);
    const entry = harEntry(event({ body: bytes, contentType: null, headers: [], response: { status: 200, headers: [], body: bytes, truncated: false } }), "http://h");
    expect(entry.request.postData).toEqual({ mimeType: "application/octet-stream", text: Buffer.from(bytes).toString("base64"), _encoding: "base64" });
    expect(Buffer.from(entry.request.postData!.text, "base64")).toEqual(Buffer.from(bytes));
    expect(entry.response.content).toMatchObject({ size: 5, encoding: "base64", text: Buffer.from(bytes).toString("base64") });
  });

  it("has status 0 and no content when nothing answered, and no postData for an empty body or query", () => {
    const entry = harEntry(event({ path: "", query: "", body: new Uint8Array(), response: null, latencyMs: null, status: "pending" }), "http://h");
    expect(entry.request.url).toBe("http://h/api/webhook/orders-x1");
    expect(entry.request.queryString).toEqual([]);
    expect(entry.request).not.toHaveProperty("postData");
    expect(entry.response).toMatchObject({ status: 0, statusText: "", content: { size: 0, mimeType: "", text: "" }, bodySize: -1 });
    expect(entry.time).toBe(0);
  });

  it("joins into one valid HAR document", () => {
    const text = harStart("1.0.0") + [harEntry(event(), "http://h"), harEntry(event(), "http://h")].map((e) => JSON.stringify(e)).join(",") + HAR_END;
    const har = JSON.parse(text);
    expect(har.log.version).toBe("1.2");
    expect(har.log.creator).toEqual({ name: "Rehook", version: "1.0.0" });
    expect(har.log.entries).toHaveLength(2);
  });
});

describe("ndjsonLine", () => {
  it("is one line holding the event, its headers in order and the bodies as base64", () => {
    const line = ndjsonLine(event({ body: new Uint8Array([0, 1, 2, 255]) }));
    expect(line.endsWith("\n")).toBe(true);
    expect(line.indexOf("\n")).toBe(line.length - 1);
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({ id: event().id, method: "POST", path: "/stripe/v1", status: "delivered", received_at: "2026-01-02T03:04:05.678Z" });
    expect(parsed.headers).toEqual([
      ["Content-Type", "application/json"],
      ["X-Seq", "1"],
      ["x-seq", "2"],
    ]);
    expect(Buffer.from(parsed.body_base64, "base64")).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(parsed.response).toEqual({ status: 202, headers: [["content-type", "text/plain"]], body_base64: Buffer.from("thanks").toString("base64"), body_truncated: false });
  });
});
