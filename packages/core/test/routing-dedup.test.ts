import { describe, expect, it } from "vitest";
import { dedupKey, dedupRuleSchema, describeDedupKey, MAX_DEDUP_WINDOW_S, type DedupRule } from "../src/routing/dedup.js";

type Headers = Array<[string, string]>;

const rule = (key: DedupRule["key"]): DedupRule => ({ key, window_s: 60 });
const request = (headers: Headers = [], body: string | Uint8Array = "", source = "unknown") => ({
  headers,
  body: typeof body === "string" ? Buffer.from(body) : body,
  source,
});

const AUTO = rule("auto");
const auto = (headers: Headers, body = "", source = "unknown") => dedupKey(AUTO, request(headers, body, source));
const byHeader = (name: string, headers: Headers) => dedupKey(rule({ header: name }), request(headers));
const byJson = (path: string, body: string | Uint8Array) => dedupKey(rule({ json: path }), request([], body));
const byBody = (body: string | Uint8Array) => dedupKey(rule("body"), request([], body));

describe("dedupRuleSchema", () => {
  it("accepts each kind of key and the window's bounds", () => {
    for (const key of ["auto", "body", { header: "X-Request-Id" }, { json: "data.object.id" }, { json: "items.0.id" }] as const) {
      expect(dedupRuleSchema.parse({ key, window_s: 1 })).toEqual({ key, window_s: 1 });
    }
    expect(dedupRuleSchema.parse({ key: "auto", window_s: MAX_DEDUP_WINDOW_S }).window_s).toBe(604_800);
  });

  it("refuses a window out of range or not whole seconds", () => {
    for (const window_s of [0, -1, MAX_DEDUP_WINDOW_S + 1, 1.5, "60", null, Number.NaN]) {
      const result = dedupRuleSchema.safeParse({ key: "auto", window_s });
      expect(result.success, String(window_s)).toBe(false);
      expect(result.error?.issues[0]?.message).toContain("window_s");
    }
    expect(dedupRuleSchema.safeParse({ key: "auto" }).success).toBe(false);
  });

  it("refuses unknown keys, at both levels", () => {
    expect(dedupRuleSchema.safeParse({ key: "auto", window_s: 60, scope: "team" }).success).toBe(false);
    expect(dedupRuleSchema.safeParse({ key: { header: "X-Id", json: "id" }, window_s: 60 }).success).toBe(false);
    expect(dedupRuleSchema.safeParse({ key: { header: "X-Id", trim: true }, window_s: 60 }).success).toBe(false);
    for (const key of ["Auto", "headers", "", 1, null, {}, ["auto"]]) {
      const result = dedupRuleSchema.safeParse({ key, window_s: 60 });
      expect(result.success, JSON.stringify(key)).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/^the dedup key must be/);
    }
  });

  it("takes header names that are HTTP tokens up to 256 characters", () => {
    expect(dedupRuleSchema.safeParse({ key: { header: "x".repeat(256) }, window_s: 60 }).success).toBe(true);
    for (const header of ["", "x".repeat(257), "X Request", "X-Id:", "X-Id\r\n", "Ünïcode"]) {
      const result = dedupRuleSchema.safeParse({ key: { header }, window_s: 60 });
      expect(result.success, JSON.stringify(header)).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/^the dedup header must be/);
    }
    expect(dedupRuleSchema.safeParse({ key: { header: 5 }, window_s: 60 }).success).toBe(false);
  });

  it("takes dotted JSON paths of non-empty segments up to 256 characters", () => {
    expect(dedupRuleSchema.safeParse({ key: { json: "a".repeat(256) }, window_s: 60 }).success).toBe(true);
    expect(dedupRuleSchema.safeParse({ key: { json: "with space.ünï" }, window_s: 60 }).success).toBe(true);
    for (const json of ["", "a".repeat(257), ".id", "id.", "data..id", ".", "a\u0000b", "\uD800"]) {
      const result = dedupRuleSchema.safeParse({ key: { json }, window_s: 60 });
      expect(result.success, JSON.stringify(json)).toBe(false);
      expect(result.error?.issues[0]?.message).toMatch(/^the dedup json path must be/);
    }
  });
});

describe("dedupKey: auto", () => {
  const HEADER_PROVIDERS: Array<[string, string]> = [
    ["webhook-id", "msg_2a"],
    ["svix-id", "msg_2b"],
    ["X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958"],
    ["X-Shopify-Webhook-Id", "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043"],
    ["X-Atlassian-Webhook-Identifier", "1234-abcd"],
    ["Linear-Delivery", "234d1a4e-b617-4388-90fe-adc3633d6b72"],
    ["I-Twilio-Idempotency-Token", "6f1c0a2e-token"],
  ];

  it.each(HEADER_PROVIDERS)("reads %s", (name, id) => {
    const key = auto([["content-type", "application/json"], [name, id]]);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(auto([[name.toUpperCase(), id]])).toBe(key);
    expect(auto([[name, `${id}x`]])).not.toBe(key);
  });

  it("tags each provider's id, so equal ids of different providers differ", () => {
    const keys = HEADER_PROVIDERS.map(([name]) => auto([[name, "same-id"]]));
    // webhook-id and svix-id carry the same Standard Webhooks message id: one family.
    expect(keys[0]).toBe(keys[1]);
    expect(new Set(keys).size).toBe(HEADER_PROVIDERS.length - 1);
  });

  it("reads GitLab's Idempotency-Key only from GitLab: elsewhere anybody may set it", () => {
    const gitlab = auto([["Idempotency-Key", "f5e5f430"], ["X-Gitlab-Event", "Push Hook"]], "{}", "gitlab");
    expect(gitlab).toMatch(/^[0-9a-f]{64}$/);
    expect(auto([["Idempotency-Key", "f5e5f430"]], "{}", "unknown")).toBeNull();
    // X-Gitlab-Event-UUID is shared by webhooks a webhook triggered: no delivery id.
    expect(auto([["X-Gitlab-Event-UUID", "13792a34"]], "{}", "gitlab")).toBeNull();
  });

  it("reads Stripe's event id from the body of a Stripe request", () => {
    const body = (id: string) => JSON.stringify({ id, object: "event", data: { object: { id: "pi_1" } } });
    const key = auto([], body("evt_1NG8Du2eZvKYlo2C"), "stripe");
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(auto([], body("evt_1NG8Du2eZvKYlo2D"), "stripe")).not.toBe(key);
    expect(auto([], body("evt_1NG8Du2eZvKYlo2C"), "unknown")).toBeNull();
    expect(auto([], body("pi_1"), "stripe")).toBeNull();
    expect(auto([], JSON.stringify({ data: { id: "evt_1" } }), "stripe")).toBeNull();
  });

  it("reads Slack's event_id from the body of a Slack request", () => {
    const body = JSON.stringify({ type: "event_callback", event_id: "Ev0PV52K21", event: { type: "app_mention" } });
    expect(auto([], body, "slack")).toMatch(/^[0-9a-f]{64}$/);
    expect(auto([], body, "unknown")).toBeNull();
    // Interactivity posts a form: no event id.
    expect(auto([], "payload=%7B%7D", "slack")).toBeNull();
  });

  it("reads Paddle's event_id from the body of a Paddle request", () => {
    const body = JSON.stringify({ event_id: "evt_01h8bzakzx3hm2fmen703n5q45", event_type: "transaction.paid", notification_id: "ntf_1" });
    expect(auto([], body, "paddle")).toMatch(/^[0-9a-f]{64}$/);
    expect(auto([], JSON.stringify({ event_id: "Ev1" }), "paddle")).toBeNull();
  });

  it("tags body ids by provider too", () => {
    const stripe = auto([], JSON.stringify({ id: "evt_1", event_id: "evt_1" }), "stripe");
    const paddle = auto([], JSON.stringify({ id: "evt_1", event_id: "evt_1" }), "paddle");
    expect(stripe).not.toBeNull();
    expect(paddle).not.toBeNull();
    expect(stripe).not.toBe(paddle);
  });

  it("takes the first id of the table when a request carries several", () => {
    const alone = auto([["webhook-id", "msg_1"]]);
    expect(auto([["X-GitHub-Delivery", "gh-1"], ["webhook-id", "msg_1"]])).toBe(alone);
    const github = auto([["X-GitHub-Delivery", "gh-1"]]);
    expect(auto([["X-GitHub-Delivery", "gh-1"], ["Linear-Delivery", "lin-1"]])).toBe(github);
    // A header id wins over the body's.
    const stripeBody = JSON.stringify({ id: "evt_1" });
    expect(auto([["webhook-id", "msg_1"]], stripeBody, "stripe")).toBe(alone);
  });

  it("has no key without a known id, or with an empty one", () => {
    expect(auto([])).toBeNull();
    expect(auto([["X-Request-Id", "abc"], ["Idempotency-Key", "k"]])).toBeNull();
    expect(auto([["webhook-id", ""]])).toBeNull();
    expect(auto([["webhook-id", "  "]])).toBeNull();
    // An empty id does not hide the next one of the table.
    expect(auto([["webhook-id", ""], ["X-GitHub-Delivery", "gh-1"]])).toBe(auto([["X-GitHub-Delivery", "gh-1"]]));
  });
});

describe("dedupKey: header", () => {
  it("matches the name case-insensitively, whatever case the rule was written in", () => {
    const key = byHeader("X-Request-Id", [["x-request-id", "r-1"]]);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(byHeader("x-request-id", [["X-REQUEST-ID", "r-1"]])).toBe(key);
    expect(byHeader("X-Request-Id", [["x-request-id", "R-1"]])).not.toBe(key);
  });

  it("has no key when the header is missing, empty or blank", () => {
    expect(byHeader("X-Request-Id", [["X-Other", "r-1"]])).toBeNull();
    expect(byHeader("X-Request-Id", [["X-Request-Id", ""]])).toBeNull();
    expect(byHeader("X-Request-Id", [["X-Request-Id", " \t"]])).toBeNull();
  });

  it("depends on every value of a repeated header, as HTTP joins them", () => {
    const first = byHeader("X-Id", [["X-Id", "a"]]);
    const both = byHeader("X-Id", [["X-Id", "a"], ["X-Id", "b"]]);
    expect(both).not.toBe(first);
    expect(byHeader("X-Id", [["X-Id", "a, b"]])).toBe(both);
    expect(byHeader("X-Id", [["X-Id", "a"], ["X-Id", ""]])).toBe(first);
  });

  it("tells the same value under two headers apart", () => {
    expect(byHeader("X-A", [["X-A", "1"]])).not.toBe(byHeader("X-B", [["X-B", "1"]]));
  });
});

describe("dedupKey: json", () => {
  it("reads top-level and nested fields", () => {
    const body = JSON.stringify({ id: "top", data: { id: "inner", object: { id: "deep" } } });
    const top = byJson("id", body);
    expect(top).toMatch(/^[0-9a-f]{64}$/);
    expect(byJson("id", JSON.stringify({ data: {}, id: "top" }))).toBe(top);
    expect(byJson("data.id", body)).toBe(byJson("data.id", JSON.stringify({ data: { id: "inner" } })));
    expect(byJson("data.object.id", body)).toBe(byJson("data.object.id", JSON.stringify({ data: { object: { id: "deep" } } })));
    expect(new Set([byJson("id", body), byJson("data.id", body), byJson("data.object.id", body)]).size).toBe(3);
  });

  it("indexes arrays with numeric segments", () => {
    const body = JSON.stringify({ items: [{ id: "a" }, { id: "b" }] });
    const second = byJson("items.1.id", body);
    expect(second).not.toBeNull();
    expect(second).toBe(byJson("items.1.id", JSON.stringify({ items: [{ id: "x" }, { id: "b" }] })));
    expect(second).not.toBe(byJson("items.1.id", JSON.stringify({ items: [{ id: "b" }, { id: "a" }] })));
    expect(byJson("items.2.id", body)).toBeNull();
    expect(byJson("items.01.id", body)).toBeNull();
    expect(byJson("items.id", body)).toBeNull();
    // A root array is indexed like any other; "id" is no field of it.
    expect(byJson("0.id", JSON.stringify([{ id: "a" }]))).not.toBeNull();
    expect(byJson("id", JSON.stringify([{ id: "a" }]))).toBeNull();
    // On an object, digits are a key.
    expect(byJson("data.0", JSON.stringify({ data: { "0": "zero" } }))).not.toBeNull();
  });

  it("has no key when the path is missing or leads to no scalar", () => {
    for (const value of [null, {}, { id: 1 }, [], ["a"], ""]) {
      expect(byJson("id", JSON.stringify({ id: value })), JSON.stringify(value)).toBeNull();
      expect(byJson("data.id", JSON.stringify({ data: { id: value } })), JSON.stringify(value)).toBeNull();
      expect(byJson("data.object.id", JSON.stringify({ data: { object: { id: value } } })), JSON.stringify(value)).toBeNull();
    }
    expect(byJson("id", JSON.stringify({ other: "x" }))).toBeNull();
    expect(byJson("data.id", JSON.stringify({ data: "text" }))).toBeNull();
    expect(byJson("data.id", JSON.stringify({ data: ["x"] }))).toBeNull();
    expect(byJson("toString", "{}")).toBeNull();
    expect(byJson("constructor.name", "{}")).toBeNull();
  });

  it("has no key when the body is not JSON", () => {
    for (const body of ["", "id=1", '{"id": "a"', '{"id": "a"}}', "null", '"id"', "<xml/>"]) {
      expect(byJson("id", body), body).toBeNull();
      expect(byJson("data.object.id", body), body).toBeNull();
    }
    expect(byJson("data.object.id", Buffer.from([0x7b, 0x22, 0x64, 0xff, 0x22, 0x3a, 0x31, 0x7d]))).toBeNull();
  });

  it("has no key when the value is not UTF-8: two such values must not read as one", () => {
    const withByte = (byte: number) => Buffer.concat([Buffer.from('{"id": "a'), Buffer.from([byte]), Buffer.from('"}')]);
    expect(byJson("id", withByte(0xff))).toBeNull();
    expect(byJson("id", withByte(0xfe))).toBeNull();
    // U+FFFD itself, well encoded, is a character like any other.
    expect(byJson("id", '{"id": "a\uFFFD"}')).toMatch(/^[0-9a-f]{64}$/);
  });

  it("tells strings, numbers and booleans apart, and refuses numbers a double cannot hold", () => {
    const keys = [{ id: "42" }, { id: 42 }, { id: "true" }, { id: true }, { id: false }].map((body) => byJson("id", JSON.stringify(body)));
    expect(keys.every((key) => key !== null)).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
    expect(byJson("id", '{"id": 42.0}')).toBe(keys[1]);
    expect(byJson("id", '{"id": 12345678901234567890}')).toBeNull();
    expect(byJson("id", '{"id": 1.5}')).toBeNull();
    expect(byJson("data.id", '{"data": {"id": 9007199254740993}}')).toBeNull();
  });

  it("reads escapes, a byte order mark and __proto__ as JSON.parse does", () => {
    const plain = byJson("id", '{"id": "é"}');
    expect(byJson("id", '{"\\u0069d": "\\u00e9"}')).toBe(plain);
    expect(byJson("id", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id": "é"}')]))).toBe(plain);
    expect(byJson("__proto__", '{"__proto__": "p"}')).not.toBeNull();
  });

  it("keeps a long value whole: values that differ only at their end differ", () => {
    const long = "x".repeat(5000);
    expect(byJson("id", JSON.stringify({ id: `${long}a` }))).not.toBe(byJson("id", JSON.stringify({ id: `${long}b` })));
    const escaped = (last: string) => `{"data": {"id": "${"\\u0041".repeat(200)}${last}"}}`;
    expect(byJson("data.id", escaped("a"))).not.toBe(byJson("data.id", escaped("b")));
    expect(byJson("data.id", escaped("a"))).toBe(byJson("data.id", JSON.stringify({ data: { id: `${"A".repeat(200)}a` } })));
  });

  it("takes the last of a repeated field, as JSON.parse does", () => {
    expect(byJson("id", '{"id": "a", "id": "b"}')).toBe(byJson("id", '{"id": "b"}'));
    expect(byJson("data.id", '{"data": {"id": "a"}, "data": {"id": "b"}}')).toBe(byJson("data.id", '{"data": {"id": "b"}}'));
  });

  it("agrees with JSON.parse on generated documents", () => {
    const next = generator(7);
    const paths = ["id", "data.id", "data.object.id", "items.0.id", "data"];
    const documents = Array.from({ length: 800 }, () => randomDocument(next));
    for (const path of paths) {
      const expected = documents.map((document) => oracle(document, path));
      const keys = documents.map((document) => byJson(path, JSON.stringify(document)));
      for (let i = 0; i < documents.length; i += 1) {
        expect(keys[i] === null, `${path} of ${JSON.stringify(documents[i])}`).toBe(expected[i] === undefined);
      }
      // Equal keys exactly where the values are equal (and of one type).
      const byValue = new Map<string, string | null>();
      for (let i = 0; i < documents.length; i += 1) {
        if (expected[i] === undefined) continue;
        const value = JSON.stringify(expected[i]);
        if (byValue.has(value)) expect(keys[i]).toBe(byValue.get(value));
        else byValue.set(value, keys[i]!);
      }
      expect(new Set(byValue.values()).size).toBe(byValue.size);
    }
  });
});

describe("dedupKey: body", () => {
  it("hashes the exact bytes: one byte more, less or different is another key", () => {
    const key = byBody('{"a":1}');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(byBody('{"a":1}')).toBe(key);
    expect(byBody('{"a":2}')).not.toBe(key);
    expect(byBody('{"a":1} ')).not.toBe(key);
    expect(byBody('{ "a":1}')).not.toBe(key);
    expect(byBody(Buffer.from([0x00, 0xff]))).not.toBe(byBody(Buffer.from([0x00, 0xfe])));
  });

  it("gives an empty body a key too", () => {
    expect(byBody("")).toMatch(/^[0-9a-f]{64}$/);
    expect(byBody("")).not.toBe(byBody(" "));
  });
});

describe("dedupKey: kinds", () => {
  it("never collide for the same material", () => {
    const keys = [
      byHeader("id", [["id", "v"]]),
      byJson("id", '{"id": "v"}'),
      auto([["webhook-id", "v"]]),
      // The bytes other kinds might be hashing, as a body.
      byBody("v"),
      byBody('["header","id","v"]'),
      byBody('["json","id","v"]'),
    ];
    expect(keys.every((key) => typeof key === "string" && /^[0-9a-f]{64}$/.test(key))).toBe(true);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("do not let a value run into the next field", () => {
    expect(byJson("a", '{"a": "b.c"}')).not.toBe(byJson("a.b", '{"a": {"b": "c"}}'));
  });
});

describe("describeDedupKey", () => {
  it("names where the key comes from", () => {
    expect(describeDedupKey(rule("auto"))).toBe("provider delivery id");
    expect(describeDedupKey(rule("body"))).toBe("exact body");
    expect(describeDedupKey(rule({ header: "X-Request-Id" }))).toBe("header X-Request-Id");
    expect(describeDedupKey(rule({ json: "data.id" }))).toBe("JSON field data.id");
  });
});

/** A small deterministic generator (no Math.random: a failure must repeat). */
function generator(seed: number) {
  // mulberry32: consecutive draws of a plain LCG are too alike to mix the cases below.
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LONG = "y".repeat(1100);
const STRINGS = ["a", "b", "é", "", "\uFFFD", "x\u{1F600}\"\\\n", `${LONG}0`, `${LONG}1`, `${LONG}2`];
const NUMBERS = [0, 1, 42, -7, 1.5, 2 ** 60];

function randomScalar(next: () => number): unknown {
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)];
  const roll = next();
  if (roll < 0.4) return pick(STRINGS);
  if (roll < 0.6) return pick(NUMBERS);
  if (roll < 0.7) return next() < 0.5;
  if (roll < 0.78) return null;
  if (roll < 0.9) return [randomScalar(next), randomValue(next, 3)];
  return {};
}

function randomValue(next: () => number, depth: number): unknown {
  if (depth > 2 || next() < 0.25) return randomScalar(next);
  const object: Record<string, unknown> = {};
  for (const name of ["id", "data", "object", "items", "other"]) {
    if (next() < 0.6) object[name] = name === "items" ? [randomValue(next, depth + 1), randomValue(next, depth + 1)] : randomValue(next, depth + 1);
  }
  return object;
}

function randomDocument(next: () => number): unknown {
  return next() < 0.1 ? [randomValue(next, 0)] : randomValue(next, 0);
}

/** What the key should be read from, by JSON.parse's reading of the document (see dedup.ts). */
function oracle(document: unknown, path: string): unknown {
  let at = document;
  for (const segment of path.split(".")) {
    if (Array.isArray(at)) at = /^(0|[1-9][0-9]*)$/.test(segment) ? at[Number(segment)] : undefined;
    else if (at !== null && typeof at === "object") at = Object.hasOwn(at, segment) ? (at as Record<string, unknown>)[segment] : undefined;
    else return undefined;
  }
  if (typeof at === "string") return at === "" ? undefined : at;
  if (typeof at === "number") return Number.isSafeInteger(at) ? at : undefined;
  if (typeof at === "boolean") return at;
  return undefined;
}
