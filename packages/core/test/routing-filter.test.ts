import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { UserError } from "../src/errors.js";
import {
  canonicalJson,
  compileFilter,
  DEFAULT_FILTER_WORK_BUDGET,
  filterDocument,
  FilterWork,
  MAX_FILTER_ARRAY_ELEMENTS,
  MAX_FILTER_BYTES,
  MAX_FILTER_DEPTH,
  parseFilter,
  compileSavedFilters,
  routeByFilters,
  routingFilterSchema,
  type FilterDocument,
  type RoutingFilter,
} from "../src/routing/filter.js";

const order = {
  type: "order.created",
  data: {
    object: { id: "ord_1", amount: 2500, currency: "usd", tags: ["vip", "repeat"], note: null, meta: { source: "web", step: 2 } },
  },
  items: [
    { sku: "A-1", qty: 2, dims: [10, 20] },
    { sku: "B-2", qty: 1, dims: [5, 5] },
  ],
  matrix: [[1, 2], [3]],
  count: 7,
};

function doc(overrides: Partial<FilterDocument> = {}): FilterDocument {
  return {
    method: "POST",
    path: "/orders/1",
    query: "a=1&b=2",
    headers: { "x-github-event": "push", "content-type": "application/json" },
    body: order,
    ...overrides,
  };
}

const matches = (filter: RoutingFilter, document: FilterDocument = doc()) => compileFilter(filter).matches(document);

function failure(value: unknown) {
  const result = parseFilter(value);
  if (result.ok) throw new Error("expected the filter to be refused");
  return { path: result.path, message: result.message };
}

describe("matching", () => {
  it("matches everything with an empty filter", () => {
    expect(matches({})).toBe(true);
    expect(matches({}, doc({ body: "" }))).toBe(true);
  });

  it("reads a plain value as $eq", () => {
    expect(matches({ method: "POST" })).toBe(true);
    expect(matches({ method: "post" })).toBe(false);
    expect(matches({ path: "/orders/1", query: "a=1&b=2" })).toBe(true);
    expect(matches({ "body.data.object.amount": 2500 })).toBe(true);
    expect(matches({ "body.data.object.amount": "2500" })).toBe(false);
  });

  it("compares arrays and objects deeply with $eq", () => {
    expect(matches({ "body.data.object.meta": { step: 2, source: "web" } })).toBe(true);
    expect(matches({ "body.data.object.meta": { source: "web" } })).toBe(false);
    expect(matches({ "body.data.object.tags": { $eq: ["vip", "repeat"] } })).toBe(true);
    expect(matches({ "body.data.object.tags": { $eq: ["repeat", "vip"] } })).toBe(false);
    expect(matches({ "body.data.object.meta": {} })).toBe(false);
    expect(matches({ "body.x": {} }, doc({ body: { x: {} } }))).toBe(true);
  });

  it("matches a scalar against any element of an array field", () => {
    expect(matches({ "body.data.object.tags": "vip" })).toBe(true);
    expect(matches({ "body.data.object.tags": "new" })).toBe(false);
    expect(matches({ "body.matrix": [3] })).toBe(true);
    // One level only: 3 sits two arrays down.
    expect(matches({ "body.matrix": 3 })).toBe(false);
  });

  it("treats $ne and $nin as negations, so missing fields pass", () => {
    expect(matches({ "body.type": { $ne: "order.created" } })).toBe(false);
    expect(matches({ "body.type": { $ne: "order.paid" } })).toBe(true);
    expect(matches({ "body.missing": { $ne: "anything" } })).toBe(true);
    expect(matches({ "body.data.object.tags": { $ne: "vip" } })).toBe(false);
    expect(matches({ "body.type": { $nin: ["order.created", "order.paid"] } })).toBe(false);
    expect(matches({ "body.type": { $nin: ["order.paid"] } })).toBe(true);
    expect(matches({ "body.missing": { $nin: [null] } })).toBe(true);
  });

  it("tests membership with $in, deep for composite values", () => {
    expect(matches({ "headers.x-github-event": { $in: ["push", "pull_request"] } })).toBe(true);
    expect(matches({ "headers.x-github-event": { $in: ["issues"] } })).toBe(false);
    expect(matches({ "body.data.object.tags": { $in: ["new", "vip"] } })).toBe(true);
    expect(matches({ "body.data.object.meta": { $in: [{ source: "web", step: 2 }] } })).toBe(true);
    expect(matches({ "body.data.object.note": { $in: [null] } })).toBe(true);
    expect(matches({ "body.count": { $in: ["7"] } })).toBe(false);
    expect(matches({ "body.count": { $in: [] } })).toBe(false);
  });

  it("orders numbers with numbers and text with text only", () => {
    expect(matches({ "body.data.object.amount": { $gt: 2499 } })).toBe(true);
    expect(matches({ "body.data.object.amount": { $gt: 2500 } })).toBe(false);
    expect(matches({ "body.data.object.amount": { $gte: 2500 } })).toBe(true);
    expect(matches({ "body.data.object.amount": { $lt: 2500 } })).toBe(false);
    expect(matches({ "body.data.object.amount": { $lte: 2500 } })).toBe(true);
    expect(matches({ "body.data.object.amount": { $gt: 1000, $lt: 3000 } })).toBe(true);
    expect(matches({ "body.data.object.amount": { $gt: 1000, $lt: 2000 } })).toBe(false);
    expect(matches({ "body.data.object.currency": { $gte: "usd", $lt: "usf" } })).toBe(true);
    // Mixed types never match, either way round.
    expect(matches({ "body.data.object.amount": { $gt: "1" } })).toBe(false);
    expect(matches({ "body.data.object.amount": { $lt: "9" } })).toBe(false);
    expect(matches({ "body.data.object.currency": { $gt: 0 } })).toBe(false);
    expect(matches({ "body.data.object.note": { $lte: 0 } })).toBe(false);
    expect(matches({ "body.missing": { $lt: 1 } })).toBe(false);
    // An array field passes when one of its elements does.
    expect(matches({ "body.items.dims": { $gt: 15 } })).toBe(true);
    expect(matches({ "body.items.dims": { $gt: 20 } })).toBe(false);
  });

  it("checks presence with $exists, null counting as present", () => {
    expect(matches({ "body.data.object.note": { $exists: true } })).toBe(true);
    expect(matches({ "body.data.object.missing": { $exists: true } })).toBe(false);
    expect(matches({ "body.data.object.missing": { $exists: false } })).toBe(true);
    expect(matches({ "headers.x-hub-signature": { $exists: false } })).toBe(true);
    expect(matches({ "headers.x-github-event": { $exists: true } })).toBe(true);
    expect(matches({ "body.items.sku": { $exists: true } })).toBe(true);
  });

  it("finds substrings of text and elements of arrays with $contains", () => {
    expect(matches({ "body.type": { $contains: "created" } })).toBe(true);
    expect(matches({ "body.type": { $contains: "paid" } })).toBe(false);
    expect(matches({ query: { $contains: "b=2" } })).toBe(true);
    expect(matches({ "body.data.object.tags": { $contains: "vip" } })).toBe(true);
    // An array holds whole elements: "vi" is no element.
    expect(matches({ "body.data.object.tags": { $contains: "vi" } })).toBe(false);
    expect(matches({ "body.matrix": { $contains: [3] } })).toBe(true);
    expect(matches({ "body.items": { $contains: { sku: "B-2", qty: 1, dims: [5, 5] } } })).toBe(true);
    expect(matches({ "body.count": { $contains: 7 } })).toBe(false);
    expect(matches({ "body.type": { $contains: 7 } })).toBe(false);
  });

  it("tests prefixes and suffixes of text only", () => {
    expect(matches({ "body.type": { $startsWith: "order." } })).toBe(true);
    expect(matches({ "body.type": { $startsWith: "created" } })).toBe(false);
    expect(matches({ "body.type": { $endsWith: ".created" } })).toBe(true);
    expect(matches({ "body.type": { $endsWith: "order" } })).toBe(false);
    expect(matches({ path: { $startsWith: "/orders/" } })).toBe(true);
    expect(matches({ "body.count": { $startsWith: "7" } })).toBe(false);
    expect(matches({ "body.data.object.tags": { $endsWith: "eat" } })).toBe(true);
  });

  it("combines filters with $and, $or and a top-level $not", () => {
    expect(matches({ $and: [{ method: "POST" }, { "body.count": 7 }] })).toBe(true);
    expect(matches({ $and: [{ method: "POST" }, { "body.count": 8 }] })).toBe(false);
    expect(matches({ $or: [{ method: "GET" }, { "body.count": 7 }] })).toBe(true);
    expect(matches({ $or: [{ method: "GET" }, { "body.count": 8 }] })).toBe(false);
    expect(matches({ $not: { method: "GET" } })).toBe(true);
    expect(matches({ $not: { method: "POST" } })).toBe(false);
    expect(matches({ $not: {} })).toBe(false);
    // Keys beside a logical operator must hold too.
    expect(matches({ method: "GET", $or: [{ "body.count": 7 }] })).toBe(false);
    expect(matches({ $or: [{ $and: [{ method: "POST" }, { "body.count": { $gt: 5 } }] }, { method: "GET" }] })).toBe(true);
  });

  it("negates a field's condition with $not, missing fields included", () => {
    expect(matches({ "body.data.object.amount": { $not: { $gt: 100 } } })).toBe(false);
    expect(matches({ "body.data.object.amount": { $not: { $gt: 10_000 } } })).toBe(true);
    expect(matches({ "body.missing": { $not: { $gt: 100 } } })).toBe(true);
    expect(matches({ "body.count": { $not: { $gt: 1, $lt: 5 } } })).toBe(true);
    expect(matches({ "body.count": { $not: { $not: { $eq: 7 } } } })).toBe(true);
  });
});

describe("paths", () => {
  it("reaches into objects and arrays by key and index", () => {
    expect(matches({ "body.items.0.sku": "A-1" })).toBe(true);
    expect(matches({ "body.items.1.sku": "A-1" })).toBe(false);
    expect(matches({ "body.items.1.dims.0": 5 })).toBe(true);
    expect(matches({ "body.items.2.sku": { $exists: true } })).toBe(false);
    expect(matches({ "body.matrix.1.0": 3 })).toBe(true);
    // A numeric step into an object reads that key.
    expect(matches({ "body.x.0": "zero" }, doc({ body: { x: { "0": "zero" } } }))).toBe(true);
    // "01" is no canonical index, so it is looked up as a key of each element.
    expect(matches({ "body.items.01": { $exists: true } })).toBe(false);
  });

  it("matches when any element of an array reached by a key step matches", () => {
    expect(matches({ "body.items.sku": "B-2" })).toBe(true);
    expect(matches({ "body.items.sku": "C-3" })).toBe(false);
    expect(matches({ "body.items.qty": { $gte: 2 } })).toBe(true);
    expect(matches({ "body.items.qty": { $gt: 2 } })).toBe(false);
    expect(matches({ "body.items.dims": [5, 5] })).toBe(true);
    // Elements that are arrays are not searched through.
    expect(matches({ "body.matrix.x": { $exists: true } }, doc({ body: { matrix: [[{ x: 1 }]] } }))).toBe(false);
    expect(matches({ "body.list.x": 1 }, doc({ body: { list: [1, null, "x", { x: 1 }] } }))).toBe(true);
  });

  it("finds missing fields missing, whatever stands in the way", () => {
    expect(matches({ "body.nothing.deeper": { $exists: false } })).toBe(true);
    expect(matches({ "body.count.deeper": { $exists: false } })).toBe(true);
    expect(matches({ "body.data.object.note.x": { $exists: false } })).toBe(true);
    expect(matches({ "body.nothing": null })).toBe(false);
    expect(matches({ "body.type.length": { $exists: true } })).toBe(false);
    // Only own keys: a prototype's members are no fields.
    expect(matches({ "body.constructor": { $exists: true } })).toBe(false);
    expect(matches({ "body.toString": { $exists: true } })).toBe(false);
  });

  it("reads a non-JSON body as text", () => {
    const text = doc({ body: "hello world" });
    expect(matches({ body: "hello world" }, text)).toBe(true);
    expect(matches({ body: { $contains: "lo wo" } }, text)).toBe(true);
    expect(matches({ body: { $startsWith: "hello" } }, text)).toBe(true);
    expect(matches({ "body.length": { $exists: true } }, text)).toBe(false);
  });

  it("matches header names in any case, as one step that may hold dots", () => {
    expect(matches({ "headers.X-GitHub-Event": "push" })).toBe(true);
    expect(matches({ "headers.x.custom": "1" }, doc({ headers: { "x.custom": "1" } }))).toBe(true);
    expect(matches({ headers: { $exists: true } })).toBe(true);
  });

  it("says whether the filter reads the body", () => {
    expect(compileFilter({}).readsBody).toBe(false);
    expect(compileFilter({ method: "POST", "headers.x-a": "1" }).readsBody).toBe(false);
    expect(compileFilter({ body: { $contains: "x" } }).readsBody).toBe(true);
    expect(compileFilter({ $or: [{ method: "GET" }, { $not: { "body.a": 1 } }] }).readsBody).toBe(true);
  });

  it("does not touch the body of a document when the filter does not read it", () => {
    const guarded = { ...doc(), get body(): unknown { throw new Error("body read"); } };
    expect(compileFilter({ method: "POST" }).matches(guarded)).toBe(true);
    expect(() => compileFilter({ "body.a": 1 }).matches(guarded)).toThrow("body read");
  });
});

describe("filterDocument", () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const request = (body: string, headers: Array<[string, string]> = [], contentType?: string | null) => ({
    method: "POST",
    path: "/hooks",
    query: "x=1",
    headers,
    body: bytes(body),
    contentType,
  });

  it("lower-cases header names and joins repeated headers", () => {
    const document = filterDocument(request("", [["X-Tag", "a"], ["x-tag", "b"], ["Content-Type", "text/plain"]]));
    expect(document.headers).toEqual({ "x-tag": "a, b", "content-type": "text/plain" });
    expect(compileFilter({ "headers.x-tag": "a, b" }).matches(document)).toBe(true);
    expect(document).toMatchObject({ method: "POST", path: "/hooks", query: "x=1" });
  });

  it("keeps a header named like an object's own members as a plain header", () => {
    const document = filterDocument(request("", [["__proto__", "x"], ["constructor", "y"]]));
    expect(document.headers["__proto__"]).toBe("x");
    expect(compileFilter({ "headers.constructor": "y", "headers.__proto__": "x" }).matches(document)).toBe(true);
    expect(compileFilter({ "headers.tostring": { $exists: true } }).matches(document)).toBe(false);
  });

  it("parses JSON bodies by content type or by their opening bracket", () => {
    expect(filterDocument(request(' {"a": 1}')).body).toEqual({ a: 1 });
    expect(filterDocument(request("\n[1, 2]")).body).toEqual([1, 2]);
    expect(filterDocument(request("42", [], "application/vnd.api+JSON")).body).toBe(42);
    expect(filterDocument(request('"text"', [["content-type", "application/json"]])).body).toBe("text");
    expect(filterDocument(request("\u{feff}{\"a\": 2}")).body).toEqual({ a: 2 });
  });

  it("keeps other bodies as UTF-8 text", () => {
    expect(filterDocument(request("42")).body).toBe("42");
    expect(filterDocument(request("{not json", [], "application/json")).body).toBe("{not json");
    expect(filterDocument(request("a=1&b=é", [], "application/x-www-form-urlencoded")).body).toBe("a=1&b=é");
    expect(filterDocument(request("")).body).toBe("");
  });

  it("does not parse a body larger than maxJsonBytes", () => {
    const body = JSON.stringify({ type: "big" });
    expect(filterDocument(request(body), { maxJsonBytes: body.length }).body).toEqual({ type: "big" });
    expect(filterDocument(request(body), { maxJsonBytes: body.length - 1 }).body).toBe(body);
  });

  it("parses the body once, on first use", () => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      const document = filterDocument(request('{"a": 1}'));
      expect(compileFilter({ method: "POST" }).matches(document)).toBe(true);
      expect(parse).not.toHaveBeenCalled();
      expect(compileFilter({ "body.a": 1 }).matches(document)).toBe(true);
      expect(document.body).toBe(document.body);
      expect(parse).toHaveBeenCalledTimes(1);
    } finally {
      parse.mockRestore();
    }
  });
});

describe("parseFilter", () => {
  it("accepts a valid filter and returns it as given", () => {
    const filter = { $or: [{ "body.amount": { $gt: 100 } }, { "headers.x-a": { $in: ["1", 2, null, { a: [1] }] } }] };
    expect(parseFilter(filter)).toEqual({ ok: true, filter });
    expect(parseFilter({})).toEqual({ ok: true, filter: {} });
  });

  it("refuses anything but an object at the top", () => {
    expect(failure(null)).toEqual({ path: "filter", message: "a filter must be an object" });
    expect(failure([])).toEqual({ path: "filter", message: "a filter must be an object" });
    expect(failure("{}")).toEqual({ path: "filter", message: "a filter must be an object" });
  });

  it("refuses unknown operators wherever they are", () => {
    expect(failure({ $where: "1" })).toEqual({ path: "filter.$where", message: "unknown operator $where" });
    expect(failure({ "body.a": { $regex: "^a" } })).toEqual({ path: "filter.body\\.a.$regex", message: "unknown operator $regex" });
    expect(failure({ $and: [{ "body.a": { $not: { $size: 1 } } }] })).toEqual({ path: "filter.$and.0.body\\.a.$not.$size", message: "unknown operator $size" });
  });

  it("refuses operators at the wrong level", () => {
    expect(failure({ $gt: 1 })).toEqual({ path: "filter.$gt", message: '$gt applies to a field, as in {"body.amount": {"$gt": …}}' });
    expect(failure({ "body.a": { $or: [{ method: "GET" }] } })).toEqual({ path: "filter.body\\.a.$or", message: "$or belongs where a filter is, not under a field" });
    expect(failure({ "body.a": { $gt: 1, b: 2 } })).toEqual({ path: "filter.body\\.a.b", message: '"b" sits among operators; an operator object holds only operators' });
    expect(failure({ "body.a": { $not: 5 } })).toMatchObject({ path: "filter.body\\.a.$not" });
    expect(failure({ "body.a": { $not: {} } })).toMatchObject({ path: "filter.body\\.a.$not" });
  });

  it("refuses wrong operand types", () => {
    expect(failure({ "body.a": { $in: "x" } })).toEqual({ path: "filter.body\\.a.$in", message: "$in needs an array" });
    expect(failure({ "body.a": { $nin: { a: 1 } } })).toEqual({ path: "filter.body\\.a.$nin", message: "$nin needs an array" });
    expect(failure({ "body.a": { $gt: null } })).toEqual({ path: "filter.body\\.a.$gt", message: "$gt needs a number or text" });
    expect(failure({ "body.a": { $lte: [1] } })).toEqual({ path: "filter.body\\.a.$lte", message: "$lte needs a number or text" });
    expect(failure({ "body.a": { $exists: 1 } })).toEqual({ path: "filter.body\\.a.$exists", message: "$exists needs true or false" });
    expect(failure({ "body.a": { $startsWith: 1 } })).toEqual({ path: "filter.body\\.a.$startsWith", message: "$startsWith needs text" });
    expect(failure({ "body.a": { $endsWith: null } })).toEqual({ path: "filter.body\\.a.$endsWith", message: "$endsWith needs text" });
    expect(failure({ $not: [] })).toEqual({ path: "filter.$not", message: "a filter must be an object" });
    expect(failure({ $or: [{ method: "GET" }, "x"] })).toEqual({ path: "filter.$or.1", message: "a filter must be an object" });
  });

  it("refuses empty or non-array $and and $or", () => {
    expect(failure({ $and: [] })).toEqual({ path: "filter.$and", message: "$and needs a non-empty array of filters" });
    expect(failure({ $or: {} })).toEqual({ path: "filter.$or", message: "$or needs a non-empty array of filters" });
  });

  it("refuses bad field paths", () => {
    expect(failure({ "bodies.a": 1 })).toEqual({ path: "filter.bodies\\.a", message: 'unknown field "bodies"; a path starts with method, path, query, headers or body' });
    expect(failure({ "": 1 })).toEqual({ path: "filter.", message: "a field path cannot be empty" });
    expect(failure({ "method.x": "POST" })).toEqual({ path: "filter.method\\.x", message: "method is text and has no fields" });
    expect(failure({ "body..a": 1 })).toEqual({ path: "filter.body\\.\\.a", message: "field path has an empty step" });
    expect(failure({ "body.": 1 })).toEqual({ path: "filter.body\\.", message: "field path has an empty step" });
    expect(failure({ "headers.": 1 })).toEqual({ path: "filter.headers\\.", message: "the header name is missing" });
    const long = `body.${"a".repeat(251)}`;
    expect(parseFilter({ [long]: 1 }).ok).toBe(true);
    expect(failure({ [`${long}b`]: 1 })).toMatchObject({ message: "field path is longer than 256 characters" });
  });

  it("escapes dots and backslashes of keys in the path", () => {
    expect(failure({ $or: [{ "body.a\\b": { $bad: 1 } }] })).toEqual({ path: "filter.$or.0.body\\.a\\\\b.$bad", message: "unknown operator $bad" });
  });

  it("refuses more than 1,000 $in values", () => {
    const values = Array.from({ length: 1000 }, (_, i) => i);
    expect(parseFilter({ "body.a": { $in: values } }).ok).toBe(true);
    expect(failure({ "body.a": { $nin: [...values, 1000] } })).toEqual({ path: "filter.body\\.a.$nin", message: "$nin takes at most 1,000 values" });
  });

  it("refuses values that are not JSON", () => {
    expect(failure({ "body.a": Number.NaN })).toEqual({ path: "filter.body\\.a", message: "NaN is not a JSON number" });
    expect(failure({ "body.a": { $in: [1, undefined] } })).toEqual({ path: "filter.body\\.a.$in.1", message: "a value of type undefined is not JSON" });
    expect(failure({ "body.a": new Date(0) })).toMatchObject({ path: "filter.body\\.a" });
    const cyclic: Record<string, unknown> = {};
    cyclic["body.a"] = cyclic;
    expect(failure(cyclic)).toMatchObject({ message: "nested deeper than 8 levels" });
  });

  it("allows 8 levels of brackets and refuses 9", () => {
    expect(MAX_FILTER_DEPTH).toBe(8);
    // Levels: filter 1, $or array 2, filter 3, operator object 4, $in array 5, then literal 6..8.
    const deepest = { $or: [{ "body.a": { $in: [[[[1]]]] } }] };
    expect(parseFilter(deepest).ok).toBe(true);
    expect(failure({ $or: [{ "body.a": { $in: [[[[[1]]]]] } }] })).toEqual({ path: "filter.$or.0.body\\.a.$in.0.0.0.0", message: "nested deeper than 8 levels" });
    let nested: Record<string, unknown> = { method: "GET" };
    for (let i = 0; i < 7; i += 1) nested = { $not: nested };
    expect(parseFilter(nested).ok).toBe(true);
    expect(failure({ $not: nested })).toEqual({ path: `filter${".$not".repeat(8)}`, message: "nested deeper than 8 levels" });
  });

  it("allows 16 KiB of filter and refuses more", () => {
    expect(MAX_FILTER_BYTES).toBe(16 * 1024);
    const padded = (bytes: number) => ({ "body.a": "x".repeat(bytes - '{"body.a":""}'.length) });
    expect(JSON.stringify(padded(MAX_FILTER_BYTES)).length).toBe(MAX_FILTER_BYTES);
    expect(parseFilter(padded(MAX_FILTER_BYTES)).ok).toBe(true);
    expect(failure(padded(17_000))).toEqual({ path: "filter", message: "filter is 17,000 bytes; the limit is 16 KiB" });
    // Bytes of UTF-8, not characters: 6,000 é are 12,000 bytes.
    expect(failure({ "body.a": "é".repeat(6000), "body.b": "é".repeat(3000) })).toMatchObject({ message: expect.stringMatching(/^filter is 18,0\d\d bytes/) });
  });
});

describe("compileFilter and routingFilterSchema", () => {
  it("throws a UserError naming the place when given an invalid filter", () => {
    const invalid = { "body.a": { $regex: "x" } } as unknown as RoutingFilter;
    expect(() => compileFilter(invalid)).toThrow(UserError);
    expect(() => compileFilter(invalid)).toThrow("The routing filter is invalid at filter.body\\.a.$regex: unknown operator $regex.");
  });

  it("reports a problem as one zod issue on the filter, its message naming where", () => {
    expect(routingFilterSchema.safeParse({ method: "GET" })).toEqual({ success: true, data: { method: "GET" } });
    const result = z.object({ filter: routingFilterSchema }).safeParse({ filter: { $and: [{ method: "GET" }, { "body.amount": { $gt: [] } }] } });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([
      expect.objectContaining({ path: ["filter"], message: "filter is invalid at filter.$and.1.body\\.amount.$gt: $gt needs a number or text" }),
    ]);
  });
});

describe("large documents", () => {
  it("evaluates a 100,000-element array in one pass", () => {
    const items = Array.from({ length: 100_000 }, (_, i) => ({ sku: `S-${i}`, qty: i % 7, tags: ["a", "b"] }));
    const big = doc({ body: { items } });
    expect(matches({ "body.items.sku": "S-99999" }, big)).toBe(true);
    expect(matches({ "body.items.sku": { $in: ["S-100000", "nope"] } }, big)).toBe(false);
    expect(matches({ "body.items.qty": { $gt: 6 } }, big)).toBe(false);
    expect(matches({ "body.items.tags": { $nin: ["c"] } }, big)).toBe(true);
    expect(matches({ "body.items": { $contains: { sku: "S-50000", qty: 50000 % 7, tags: ["a", "b"] } } }, big)).toBe(true);
    expect(matches({ "body.items.99999.sku": { $endsWith: "9999" } }, big)).toBe(true);
  });

  it("does not recurse into a deeply nested document beyond the filter's depth", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    const nested = doc({ body: { deep } });
    expect(matches({ "body.deep": { $eq: [[1]] } }, nested)).toBe(false);
    expect(matches({ "body.deep": { $contains: 1 } }, nested)).toBe(false);
    expect(matches({ "body.deep.0.0.0": { $exists: true } }, nested)).toBe(true);
  });
});

/** A small seeded generator (mulberry32): the same values on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random JSON value of small depth, with few distinct keys and scalars so that equal values come up. */
function randomJson(random: () => number, depth: number): unknown {
  const pick = random();
  if (depth === 0 || pick < 0.4) return [null, true, false, 0, -0, 1, 1.5, "1", "a", "b", ""][Math.floor(random() * 11)];
  const size = Math.floor(random() * 3);
  if (pick < 0.7) return Array.from({ length: size }, () => randomJson(random, depth - 1));
  const keys = ["a", "b", "c"].sort(() => random() - 0.5).slice(0, size);
  return Object.fromEntries(keys.map((key) => [key, randomJson(random, depth - 1)]));
}

describe("$in by canonical JSON", () => {
  it("finds objects whatever their key order, as $eq does", () => {
    const body = { pair: { b: 2, a: 1 }, nested: { x: [{ d: 4, c: 3 }], y: { b: null, a: "t" } } };
    const on = doc({ body });
    expect(matches({ "body.pair": { $in: [{ a: 1, b: 2 }] } }, on)).toBe(true);
    expect(matches({ "body.pair": { $eq: { a: 1, b: 2 } } }, on)).toBe(true);
    expect(matches({ "body.nested": { $in: [{ y: { a: "t", b: null }, x: [{ c: 3, d: 4 }] }] } }, on)).toBe(true);
    expect(matches({ "body.pair": { $in: [{ a: 1 }, { a: 1, b: 2, c: 3 }, { a: "1", b: 2 }] } }, on)).toBe(false);
    expect(matches({ "body.pair": { $nin: [{ a: 1, b: 2 }] } }, on)).toBe(false);
  });

  it("keeps arrays in order, numbers by value, and text apart from numbers", () => {
    const on = doc({ body: { list: [1, 2], zero: [-0], whole: [1.0] } });
    expect(matches({ "body.list": { $in: [[2, 1]] } }, on)).toBe(false);
    expect(matches({ "body.list": { $in: [[1, 2]] } }, on)).toBe(true);
    expect(matches({ "body.zero": { $in: [[0]] } }, on)).toBe(true);
    expect(matches({ "body.whole": { $in: [[1]] } }, on)).toBe(true);
    expect(matches({ "body.list": { $in: [["1", "2"]] } }, on)).toBe(false);
  });

  it("agrees with $eq on 5,000 random pairs of values", () => {
    const random = seeded(41);
    let equal = 0;
    for (let i = 0; i < 5_000; i += 1) {
      const value = randomJson(random, 3);
      const literal = random() < 0.3 ? JSON.parse(JSON.stringify(value)) as unknown : randomJson(random, 3);
      const on = doc({ body: { value } });
      const eq = matches({ "body.value": { $eq: literal } } as RoutingFilter, on);
      expect(matches({ "body.value": { $in: [literal, { never: "this" }] } } as RoutingFilter, on), JSON.stringify({ value, literal })).toBe(eq);
      if (eq) equal += 1;
    }
    // The check means something only if both answers came up often.
    expect(equal).toBeGreaterThan(1_000);
    expect(equal).toBeLessThan(4_000);
  });

  it("writes canonical JSON with sorted keys, and gives up past a length", () => {
    expect(canonicalJson({ b: [1, { d: 1, c: "x" }], a: null })).toBe('{"a":null,"b":[1,{"c":"x","d":1}]}');
    expect(canonicalJson({ b: 1, a: 2 }, { maxLength: 13 })).toBe('{"a":2,"b":1}');
    expect(canonicalJson({ b: 1, a: 2 }, { maxLength: 12 })).toBeUndefined();
    expect(canonicalJson("x".repeat(100), { maxLength: 50 })).toBeUndefined();
    expect(canonicalJson(Array.from({ length: 100 }, () => 0), { maxLength: 50 })).toBeUndefined();
  });

  it("gives up past a depth without recursing further", () => {
    expect(canonicalJson([[1]], { maxDepth: 2 })).toBe("[[1]]");
    expect(canonicalJson([[[1]]], { maxDepth: 2 })).toBeUndefined();
    expect(canonicalJson({ a: { b: {} } }, { maxDepth: 2 })).toBeUndefined();
    expect(canonicalJson(deeplyNested(100_000), { maxDepth: 8 })).toBeUndefined();
  });

  it("writes keys in code unit order and escapes as JSON.stringify does: non-ASCII, lone surrogates, quotes, backslashes, __proto__", () => {
    // Code unit order: an astral character's high surrogate (0xD83D) sorts before U+FFFF, and "z" before "é".
    expect(canonicalJson({ "\uffff": 1, "😀": 2, é: 3, z: 4 })).toBe('{"z":4,"é":3,"😀":2,"\uffff":1}');
    expect(canonicalJson({ k: "\ud800", "\udc00": "x" })).toBe('{"k":"\\ud800","\\udc00":"x"}');
    expect(canonicalJson({ 'a"b': 1, "a\\b": 2 })).toBe('{"a\\"b":1,"a\\\\b":2}');
    expect(canonicalJson(JSON.parse('{"__proto__":{"a":1},"b":2}'))).toBe('{"__proto__":{"a":1},"b":2}');
  });

  it("matches bodies with such keys and text as $eq does", () => {
    const on = filterDocument({ method: "POST", path: "", query: "", headers: [], body: new TextEncoder().encode('{"x":{"\\ud800":"\\udfff","a\\"b\\\\":"é","__proto__":{"a":1}}}'), contentType: "application/json" });
    const literal = JSON.parse('{"__proto__":{"a":1},"a\\"b\\\\":"é","\\ud800":"\\udfff"}') as RoutingFilter;
    expect(matches({ "body.x": { $in: [literal] } }, on)).toBe(true);
    expect(matches({ "body.x": { $eq: literal } }, on)).toBe(true);
    const withoutProto = JSON.parse('{"a\\"b\\\\":"é","\\ud800":"\\udfff"}') as RoutingFilter;
    expect(matches({ "body.x": { $in: [withoutProto] } }, on)).toBe(false);
    expect(matches({ "body.x": { $in: [{ ...withoutProto, a: 1 }] } }, on)).toBe(false);
  });
});

/** `levels` arrays nested in one another around a 0, built without recursion. */
function deeplyNested(levels: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < levels; i += 1) value = [value];
  return value;
}

/** Runs `run` from so deep a recursion that only about `fraction` of the thread's stack is left. */
function withStackLeft<T>(fraction: number, run: () => T): T {
  let frames = 0;
  const descend = (left: number, then: () => T): T => {
    frames += 1;
    return left === 0 ? then() : descend(left - 1, then);
  };
  try {
    descend(Number.POSITIVE_INFINITY, run);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
  }
  return descend(Math.floor(frames * (1 - fraction)), run);
}

describe("bodies nested far deeper than any filter", () => {
  // A 24 KB body of 12,000 levels against a 14 KB filter: the walks over body values once
  // recursed as deep as the body went and overflowed the stack (a RangeError, so every
  // capture of that sender failed). A value deeper than every literal equals none of them.
  const levels = 12_000;
  const deepText = `{"x":${"[".repeat(levels)}0${"]".repeat(levels)},"y":[${"[".repeat(levels)}${"]".repeat(levels)}]}`;
  const deep = filterDocument({ method: "POST", path: "", query: "", headers: [], body: new TextEncoder().encode(deepText), contentType: "application/json" });
  const zeros = Array.from({ length: 7_000 }, () => 0);

  it.each([
    ["$in with a long array", { "body.x": { $in: [zeros] } }, false],
    ["$nin with a long array", { "body.x": { $nin: [zeros] } }, true],
    ["$in with the deepest literal", { "body.x": { $in: [[[[[[0]]]]]] } }, false],
    ["$eq with an array", { "body.x": { $eq: [[[[[0]]]]] } }, false],
    ["$eq with an object", { "body.x": { a: { b: { c: [0] } } } }, false],
    ["$ne", { "body.x": { $ne: [[[[0]]]] } }, true],
    ["$contains", { "body.y": { $contains: [[[[[0]]]]] } }, false],
    ["$exists on a path through it", { "body.x.0.0.0.0.0.0.0.0": { $exists: true } }, true],
    ["$in on a path through it", { "body.y.0.0.0.0": { $in: [[[[]]], [0]] } }, false],
  ] as const)("%s: a verdict with a tenth of the stack left, never a stack overflow", (_, filter, expected) => {
    const compiled = compileFilter(filter as unknown as RoutingFilter);
    expect(deep.body).toBeTypeOf("object");
    // A capture worker thread may have less stack than this test's: the evaluation must need little.
    expect(withStackLeft(0.1, () => compiled.evaluate(deep, new FilterWork()))).toBe(expected ? "match" : "no_match");
  });

  it("still matches a deep body value equal to the deepest literal", () => {
    const literal = deeplyNested(MAX_FILTER_DEPTH - 3);
    const on = doc({ body: { x: [deeplyNested(MAX_FILTER_DEPTH - 3)] } });
    expect(matches({ "body.x": { $in: [literal] } } as RoutingFilter, on)).toBe(true);
    expect(matches({ "body.x": { $in: [deeplyNested(MAX_FILTER_DEPTH - 4)] } } as RoutingFilter, on)).toBe(false);
  });
});

describe("work budget", () => {
  const items = Array.from({ length: 30_000 }, (_, i) => ({ q: i % 7, sku: `S-${i}` }));
  const hostile = doc({ body: { items } });
  const composites = Array.from({ length: 1000 }, (_, i) => ({ q: i + 7 }));

  it("costs the 1,000-object $in one lookup per element, not a comparison per value", () => {
    const work = new FilterWork();
    expect(compileFilter({ "body.items": { $in: composites } }).evaluate(hostile, work)).toBe("no_match");
    // About a dozen units an element (written out as canonical JSON), never 1,000.
    expect(work.spent).toBeLessThan(items.length * 20);
    expect(compileFilter({ "body.items": { $in: [...composites.slice(1), { sku: "S-29999", q: 29_999 % 7 }] } }).matches(hostile)).toBe(true);
  });

  it("shares one budget across a capture's filters: once spent, the rest are cut short and do not match", () => {
    const heavy = compileFilter({ $or: Array.from({ length: 40 }, (_, i) => ({ "body.items.q": 100 + i })) });
    const trivial = compileFilter({ method: "POST" });
    const routing = routeByFilters(
      [
        { id: "first", filter: trivial },
        { id: "heavy", filter: heavy },
        { id: "after", filter: compileFilter({ method: "POST" }) },
      ],
      hostile,
      new FilterWork(),
    );
    expect(routing).toEqual({ matched: ["first"], cutShort: ["heavy", "after"] });
    // The same filters with work to spare each give their verdict.
    const ample = routeByFilters([{ id: "heavy", filter: heavy }, { id: "after", filter: trivial }], hostile, new FilterWork(100 * DEFAULT_FILTER_WORK_BUDGET));
    expect(ample).toEqual({ matched: ["after"], cutShort: [] });
  });

  it("evaluates a filter that several destinations share once", () => {
    const filter = { "body.items": { $in: composites } };
    const once = new FilterWork();
    compileFilter(filter).evaluate(hostile, once);
    const shared = new FilterWork();
    const saved = Array.from({ length: 20 }, (_, i) => ({ id: `d${i}`, filter }));
    expect(routeByFilters(compileSavedFilters([...saved, { id: "other", filter: { method: "POST" } }]), hostile, shared)).toEqual({ matched: ["other"], cutShort: [] });
    expect(shared.spent).toBeLessThan(once.spent + 10);
  });

  it("never turns a cut-short evaluation into a match through $not, $nin or $ne", () => {
    const slow = { $or: Array.from({ length: 40 }, (_, i) => ({ "body.items.q": 100 + i })) };
    const small = () => new FilterWork(10_000);
    expect(compileFilter({ $not: slow }).evaluate(hostile, small())).toBe("cut_short");
    expect(compileFilter({ "body.items.sku": { $nin: ["none"] } }).evaluate(hostile, small())).toBe("cut_short");
    expect(compileFilter({ "body.items.sku": { $ne: "none" } }).evaluate(hostile, small())).toBe("cut_short");
    expect(compileFilter({ "body.items.sku": { $not: { $in: ["none"] } } }).evaluate(hostile, small())).toBe("cut_short");
    // A verdict found before the budget runs out stands.
    expect(compileFilter({ "body.items.sku": "S-3" }).evaluate(hostile, small())).toBe("match");
    expect(compileFilter({ "body.items.0.sku": { $ne: "S-0" } }).evaluate(hostile, small())).toBe("no_match");
  });

  it("reaches the same verdicts as before on whatever fits the budget", () => {
    const random = seeded(7);
    const filters: RoutingFilter[] = [
      { "body.items.q": { $in: [3, 9] } },
      { "body.items": { $contains: { q: 2, sku: "S-2" } } },
      { $and: [{ "body.items.sku": { $startsWith: "S-1" } }, { "body.items.q": { $gte: 6 } }] },
      { $not: { "body.items.q": { $lt: 0 } } },
      { "body.items.sku": { $nin: ["S-1", "S-2"] } },
    ];
    for (let round = 0; round < 50; round += 1) {
      const body = { items: Array.from({ length: Math.floor(random() * 50) }, () => ({ q: Math.floor(random() * 10), sku: `S-${Math.floor(random() * 5)}` })) };
      for (const filter of filters) {
        const compiled = compileFilter(filter);
        const verdict = compiled.evaluate(doc({ body }), new FilterWork(5_000));
        expect(verdict).toBe(compiled.evaluate(doc({ body }), new FilterWork(Number.MAX_SAFE_INTEGER)));
      }
    }
  });

  it(`cuts short a filter that must look past ${MAX_FILTER_ARRAY_ELEMENTS.toLocaleString("en-US")} elements of one array`, () => {
    const long = doc({ body: { list: Array.from({ length: MAX_FILTER_ARRAY_ELEMENTS + 1 }, (_, i) => i) } });
    const ample = () => new FilterWork(100 * DEFAULT_FILTER_WORK_BUDGET);
    expect(compileFilter({ "body.list": 5 }).evaluate(long, ample())).toBe("match");
    expect(compileFilter({ "body.list": MAX_FILTER_ARRAY_ELEMENTS }).evaluate(long, ample())).toBe("cut_short");
    expect(compileFilter({ "body.list": { $contains: -1 } }).evaluate(long, ample())).toBe("cut_short");
    expect(compileFilter({ "body.list": { $exists: true } }).evaluate(long, ample())).toBe("match");
  });

  it("charges searching text by its length", () => {
    const text = doc({ body: "a".repeat(1_000_000) });
    const work = new FilterWork();
    expect(compileFilter({ body: { $contains: "ab" } }).evaluate(text, work)).toBe("no_match");
    expect(work.spent).toBeGreaterThan(100_000);
    expect(compileFilter({ body: { $contains: "ab" } }).evaluate(text, new FilterWork(1_000))).toBe("cut_short");
  });
});
