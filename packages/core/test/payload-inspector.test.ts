import { describe, expect, it } from "vitest";
import {
  ancestorPointers,
  classifyText,
  fileExtension,
  formRows,
  headerParameters,
  hexDump,
  initialExpansion,
  jsonContainers,
  listMultipartParts,
  looksLikeXml,
  mediaType,
  multipartBoundary,
  parseJsonPrefix,
  pointerStep,
  prettyJson,
  prettyXml,
  queryRows,
  rawBodyFileName,
  searchJson,
  textPreview,
  withoutPartialUtf8,
} from "../src/index.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("media types and header parameters", () => {
  it("reads the media type without parameters, lower-cased", () => {
    expect(mediaType("Application/JSON; charset=utf-8")).toBe("application/json");
    expect(mediaType(null)).toBe("");
    expect(mediaType("  text/plain  ")).toBe("text/plain");
  });

  it("reads parameters: quoted, escaped, repeated, RFC 8187", () => {
    const parameters = headerParameters('form-data; name="a;b"; filename="x\\"y.txt"; name=second; flag; size=3');
    expect(parameters.get("name")).toBe("a;b");
    expect(parameters.get("filename")).toBe('x"y.txt');
    expect(parameters.get("size")).toBe("3");
    expect(parameters.has("flag")).toBe(false);
    expect(headerParameters("attachment; filename=plain.txt; filename*=UTF-8''%C3%A9t%C3%A9.txt").get("filename")).toBe("été.txt");
    expect(headerParameters("text/plain").size).toBe(0);
    expect(headerParameters('a; b="unterminated').get("b")).toBe("unterminated");
  });
});

describe("form bodies and query strings", () => {
  it("decodes fields in order with duplicates, + as space and percent escapes", () => {
    expect(formRows("a=1&b=hello+world&a=%C3%A9%20x&empty=&flag").rows).toEqual([
      { name: "a", value: "1" },
      { name: "b", value: "hello world" },
      { name: "a", value: "é x" },
      { name: "empty", value: "" },
      { name: "flag", value: "" },
    ]);
  });

  it("never throws on bad escapes: they stay as they are", () => {
    expect(formRows("bad=%E0%A4%A&pct=100%&x=%zz").rows).toEqual([
      { name: "bad", value: "\uFFFD%A" },
      { name: "pct", value: "100%" },
      { name: "x", value: "%zz" },
    ]);
    expect(formRows("").rows).toEqual([]);
    expect(formRows("&&a=1&&").rows).toEqual([{ name: "a", value: "1" }]);
    expect(formRows("k=a=b").rows).toEqual([{ name: "k", value: "a=b" }]);
  });

  it("expands Slack's payload= JSON (any JSON object or array value)", () => {
    const payload = { type: "block_actions", user: { id: "U1", name: "ada" }, actions: [{ action_id: "approve", value: "yes & no" }] };
    const body = `payload=${encodeURIComponent(JSON.stringify(payload))}`;
    const [row] = formRows(body).rows;
    expect(row).toEqual({ name: "payload", value: JSON.stringify(payload), json: payload });
    // Form-encoded with + for spaces, as Slack sends it.
    expect(formRows("payload=%7B%22text%22%3A%22a+b%22%7D").rows[0]!.json).toEqual({ text: "a b" });
    expect(formRows("n=42&s=%7Bnot+json").rows.map((r) => "json" in r)).toEqual([false, false]);
    expect(formRows(body, { expandJson: false }).rows[0]).not.toHaveProperty("json");
  });

  it("stops decoding after the limit and counts the rest", () => {
    const many = Array.from({ length: 1500 }, (_, i) => `f${i}=${i}`).join("&");
    const { rows, omitted } = formRows(many);
    expect(rows).toHaveLength(1000);
    expect(omitted).toBe(500);
    expect(formRows(many, { limit: 10 })).toMatchObject({ omitted: 1490 });
  });

  it("reads a query string with or without its ?, values as text", () => {
    expect(queryRows("?a=1&b=%7B%7D&c=x+y").rows).toEqual([
      { name: "a", value: "1" },
      { name: "b", value: "{}" },
      { name: "c", value: "x y" },
    ]);
    expect(queryRows("").rows).toEqual([]);
  });
});

describe("multipart bodies", () => {
  const boundary = "----rehookBoundary7MA4YWxkTrZu0gW";
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
  const join = (...parts: Array<string | Uint8Array>) => {
    const chunks = parts.map((part) => (typeof part === "string" ? bytes(part) : part));
    const out = new Uint8Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  };
  const body = join(
    "preamble to skip\r\n",
    `--${boundary}\r\n`,
    'Content-Disposition: form-data; name="comment"\r\n\r\n',
    "Looks good to me",
    `\r\n--${boundary}\r\n`,
    'Content-Disposition: form-data; name="avatar"; filename="ada.png"\r\nContent-Type: image/png\r\n\r\n',
    png,
    `\r\n--${boundary}\r\n`,
    'Content-Disposition: form-data; name="empty"\r\n\r\n',
    `\r\n--${boundary}--\r\nepilogue`,
  );
  const contentType = `multipart/form-data; boundary=${boundary}`;

  it("finds the boundary in the Content-Type, quoted or not", () => {
    expect(multipartBoundary(contentType)).toBe(boundary);
    expect(multipartBoundary('multipart/mixed; boundary="a b:c"')).toBe("a b:c");
    expect(multipartBoundary("multipart/form-data")).toBeUndefined();
    expect(multipartBoundary("application/json; boundary=x")).toBeUndefined();
    expect(multipartBoundary(`multipart/form-data; boundary=${"x".repeat(71)}`)).toBeUndefined();
  });

  it("lists each part: name, file name, type, size and a text preview", () => {
    const listing = listMultipartParts(body, contentType)!;
    expect(listing).toMatchObject({ boundary, closed: true, omitted: 0 });
    expect(listing.parts.map(({ headers: _headers, ...part }) => part)).toEqual([
      { name: "comment", filename: null, contentType: null, size: 16, preview: "Looks good to me", previewCut: false, complete: true },
      { name: "avatar", filename: "ada.png", contentType: "image/png", size: png.length, preview: null, previewCut: false, complete: true },
      { name: "empty", filename: null, contentType: null, size: 0, preview: "", previewCut: false, complete: true },
    ]);
    expect(listing.parts[1]!.headers).toEqual([
      ["Content-Disposition", 'form-data; name="avatar"; filename="ada.png"'],
      ["Content-Type", "image/png"],
    ]);
  });

  it("accepts bare LF line ends and cuts long previews", () => {
    const lf = `--b\nContent-Disposition: form-data; name="long"\n\n${"x".repeat(500)}\n--b\n\nno headers\n--b--\n`;
    const listing = listMultipartParts(bytes(lf), "multipart/form-data; boundary=b", { previewChars: 10 })!;
    expect(listing.closed).toBe(true);
    expect(listing.parts.map((p) => [p.name, p.size, p.preview, p.previewCut])).toEqual([
      ["long", 500, "xxxxxxxxxx", true],
      [null, 10, "no headers", false],
    ]);
  });

  it("lists a cut body up to where it stops, the last part incomplete", () => {
    const cut = body.subarray(0, body.indexOf(0x0d, 140) + 20);
    const listing = listMultipartParts(cut, contentType)!;
    expect(listing.closed).toBe(false);
    expect(listing.parts.at(-1)!.complete).toBe(false);
    expect(listing.parts.slice(0, -1).every((part) => part.complete)).toBe(true);
  });

  it("counts parts past maxParts; no delimiter means no parts; never throws on junk", () => {
    const many = Array.from({ length: 5 }, (_, i) => `--b\r\nContent-Disposition: form-data; name="f${i}"\r\n\r\n${i}\r\n`).join("") + "--b--";
    expect(listMultipartParts(bytes(many), "multipart/form-data; boundary=b", { maxParts: 2 })).toMatchObject({ omitted: 3, closed: true });
    expect(listMultipartParts(bytes("no parts here"), "multipart/form-data; boundary=b")).toEqual({ boundary: "b", parts: [], omitted: 0, closed: false });
    expect(listMultipartParts(bytes("a=1"), "application/x-www-form-urlencoded")).toBeUndefined();
    for (let seed = 1; seed < 200; seed += 1) {
      const junk = Uint8Array.from({ length: 64 }, (_, i) => "-b\r\n:x "[(seed * 31 + i * i * 7) % 7]!.charCodeAt(0));
      expect(() => listMultipartParts(junk, "multipart/form-data; boundary=b")).not.toThrow();
    }
  });
});

describe("XML", () => {
  it("indents elements, keeps text-only elements on one line", () => {
    const xml = '<?xml version="1.0"?><feed xmlns="urn:x"><!-- c --><entry id="1"><title>Hi &amp; bye</title><empty/><none></none></entry></feed>';
    expect(prettyXml(xml)).toBe(
      [
        '<?xml version="1.0"?>',
        '<feed xmlns="urn:x">',
        "  <!-- c -->",
        '  <entry id="1">',
        "    <title>Hi &amp; bye</title>",
        "    <empty/>",
        "    <none></none>",
        "  </entry>",
        "</feed>",
      ].join("\n"),
    );
  });

  it("keeps CDATA, doctypes, attribute values with > and mixed content", () => {
    const xml = '<!DOCTYPE note [<!ENTITY x "y">]><note a="1 > 0"><![CDATA[<raw>]]>text<b>bold</b>tail</note>';
    expect(prettyXml(xml)).toBe(['<!DOCTYPE note [<!ENTITY x "y">]>', '<note a="1 > 0">', "  <![CDATA[<raw>]]>", "  text", "  <b>bold</b>", "  tail", "</note>"].join("\n"));
  });

  it("never throws on bad XML: undefined, so the raw text is shown", () => {
    for (const bad of ["<a><b></a>", "<a>", "<a", "plain text", "<a></a>trailing", "<a x='1></a>", "", "</a>", "<!-- open"]) {
      expect(prettyXml(bad), bad).toBeUndefined();
    }
    for (let seed = 1; seed < 300; seed += 1) {
      const junk = Array.from({ length: 40 }, (_, i) => "<>/?!-[]'\" ax"[(seed * 17 + i * i * 13) % 13]).join("");
      expect(() => prettyXml(junk)).not.toThrow();
    }
  });

  it("accepts a cut preview when told it is partial", () => {
    expect(prettyXml("<a><b>1</b><c", { partial: true })).toBe("<a>\n  <b>1</b>\n  <c");
    expect(prettyXml("<a><b>1</b><c")).toBeUndefined();
  });

  it("stays bounded on deep nesting", () => {
    const deep = "<a>".repeat(5_000) + "</a>".repeat(5_000);
    const pretty = prettyXml(deep)!;
    expect(pretty.split("\n")[100]).toBe(`${"  ".repeat(32)}<a>`);
    expect(pretty.length).toBeLessThan(deep.length * 20);
    expect(prettyXml(deep, { maxChars: deep.length })).toBeUndefined();
    // Past the default bound (4 × the input, at least 1 MiB) it is not indented at all.
    expect(prettyXml("<a>".repeat(20_000) + "</a>".repeat(20_000))).toBeUndefined();
  });

  it("is offered for XML types, or text that opens with a declaration", () => {
    expect(looksLikeXml("<a/>", "application/xml")).toBe(true);
    expect(looksLikeXml("<a/>", "application/atom+xml; charset=utf-8")).toBe(true);
    expect(looksLikeXml('<?xml version="1.0"?><a/>', "text/plain")).toBe(true);
    expect(looksLikeXml("<a/>", "text/plain")).toBe(false);
    expect(looksLikeXml("not xml", "text/xml")).toBe(false);
  });
});

describe("text bodies", () => {
  it("classifies: form by type, then JSON, then XML, then text", () => {
    expect(classifyText('{"a":1}', "application/x-www-form-urlencoded")).toEqual({ kind: "form" });
    expect(classifyText('{"a":1}', "text/plain")).toEqual({ kind: "json", value: { a: 1 } });
    expect(classifyText('\uFEFF{"a":1}', null)).toEqual({ kind: "json", value: { a: 1 } });
    expect(classifyText("<a/>", "application/xml")).toEqual({ kind: "xml" });
    expect(classifyText('{"a":', "application/json")).toEqual({ kind: "text" });
    expect(classifyText("   ", "application/json")).toEqual({ kind: "text" });
  });

  it("a cut preview that starts a JSON document is JSON, closed at the cut; a whole one is not cut", () => {
    expect(classifyText('{"type":"export.ready","rows":[{"id":1},{"id":2},{"i', "application/json", { partial: true })).toEqual({
      kind: "json",
      value: { type: "export.ready", rows: [{ id: 1 }, { id: 2 }, {}] },
      cut: { openAt: "/rows/2" },
    });
    expect(classifyText('{"a":1}', "application/json", { partial: true })).toEqual({ kind: "json", value: { a: 1 } });
    expect(classifyText("[2026-11-24] a log line", "text/plain", { partial: true })).toEqual({ kind: "text" });
    expect(classifyText("<a><b>", "application/xml", { partial: true })).toEqual({ kind: "xml" });
  });

  it("previews text, cut at a character; binary has none", () => {
    expect(textPreview(bytes("héllo wörld"), 5)).toEqual({ text: "héllo", cut: true });
    expect(textPreview(bytes("🎉🎉"), 1)).toEqual({ text: "🎉", cut: true });
    expect(textPreview(bytes("ok"), 5)).toEqual({ text: "ok", cut: false });
    expect(textPreview(Uint8Array.from([0x41, 0x00]), 5)).toBeUndefined();
    expect(textPreview(Uint8Array.from([0xff, 0xfe]), 5)).toBeUndefined();
    expect(withoutPartialUtf8(bytes("é").subarray(0, 1))).toHaveLength(0);
  });

  it("dumps binary with hex offsets", () => {
    const lines = hexDump(Uint8Array.from({ length: 40 }, (_, i) => i + 60)).split("\n");
    expect(lines.map((line) => line.slice(0, 8))).toEqual(["00000000", "00000010", "00000020"]);
    expect(lines[0]).toBe("00000000  3c 3d 3e 3f 40 41 42 43  44 45 46 47 48 49 4a 4b  <=>?@ABCDEFGHIJK");
  });
});

describe("JSON tree helpers", () => {
  const doc = { user: { name: "Ada", "a/b": { "t~x": 1 } }, items: [{ id: 1, tag: "ADA" }, { id: 2 }], ok: true, none: null };

  it("addresses nodes with JSON Pointers", () => {
    expect(pointerStep("a/b") + pointerStep("t~x") + pointerStep(0)).toBe("/a~1b/t~0x/0");
    expect(ancestorPointers("/items/0/id")).toEqual(["", "/items", "/items/0"]);
    expect(ancestorPointers("/x")).toEqual([""]);
    expect(ancestorPointers("")).toEqual([]);
  });

  it("searches keys and values, case-insensitively, in document order", () => {
    expect(searchJson(doc, "ada").matches).toEqual([
      { pointer: "/user/name", on: "value" },
      { pointer: "/items/0/tag", on: "value" },
    ]);
    expect(searchJson(doc, "ID").matches.map((m) => `${m.on} ${m.pointer}`)).toEqual(["key /items/0/id", "key /items/1/id"]);
    expect(searchJson(doc, "nul").matches).toEqual([{ pointer: "/none", on: "value" }]);
    expect(searchJson({ status: "STATUS" }, "stat").matches).toEqual([{ pointer: "/status", on: "key" }, { pointer: "/status", on: "value" }]);
    expect(searchJson(doc, "2").matches).toEqual([{ pointer: "/items/1/id", on: "value" }]);
    expect(searchJson(doc, "")).toEqual({ matches: [], capped: false });
    expect(searchJson(Array.from({ length: 50 }, () => "x"), "x", 10)).toMatchObject({ capped: true });
  });

  it("opens a small document whole and a large one a level at a time", () => {
    expect(initialExpansion(doc)).toEqual(["", "/user", "/items", "/user/a~1b", "/items/0", "/items/1"]);
    const wide = { rows: Array.from({ length: 500 }, (_, i) => ({ i })) };
    expect(initialExpansion(wide)).toEqual([""]);
    expect(initialExpansion(42)).toEqual([]);
  });

  it("lists containers breadth first, up to a limit", () => {
    expect(jsonContainers(doc).pointers).toEqual(["", "/user", "/items", "/user/a~1b", "/items/0", "/items/1"]);
    expect(jsonContainers(doc, { limit: 2 })).toEqual({ pointers: ["", "/user"], capped: true });
    // Only the children a tree shows before "Show more".
    const wide = { rows: Array.from({ length: 1000 }, (_, i) => ({ i, tags: [i] })) };
    const shown = jsonContainers(wide, { childLimit: 10 });
    expect(shown).toEqual({ pointers: ["", "/rows", ...Array.from({ length: 10 }, (_, i) => `/rows/${i}`), ...Array.from({ length: 10 }, (_, i) => `/rows/${i}/tags`)], capped: false });
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(jsonContainers(deep, { maxDepth: 10 }).pointers).toHaveLength(11);
    expect(searchJson(deep, "1").matches).toHaveLength(1);
  });

  it("pretty-prints, but not what would explode or overflow", () => {
    expect(prettyJson({ a: [1] })).toBe('{\n  "a": [\n    1\n  ]\n}');
    let deep: unknown = 1;
    for (let i = 0; i < 3000; i += 1) deep = [deep];
    expect(prettyJson(deep, 1_000_000)).toBeUndefined();
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(prettyJson(deep)).toBeUndefined();
  });
});

describe("the raw download's file name", () => {
  it("takes the extension from the Content-Type and the compression from the Content-Encoding", () => {
    const id = "0192f0c1-aaaa-7bbb-8ccc-123456789abc";
    expect(rawBodyFileName(id, "application/json; charset=utf-8")).toBe(`event-${id}.json`);
    expect(rawBodyFileName(id, "application/vnd.api+json")).toBe(`event-${id}.json`);
    expect(rawBodyFileName(id, "application/json", "gzip")).toBe(`event-${id}.json.gz`);
    expect(rawBodyFileName(id, "text/xml", "identity")).toBe(`event-${id}.xml`);
    expect(rawBodyFileName(id, null)).toBe(`event-${id}.bin`);
    expect(rawBodyFileName('x"; evil', "text/plain", "br")).toBe("event-xevil.txt.br");
    expect(fileExtension("application/x-www-form-urlencoded")).toBe("txt");
    expect(fileExtension("text/markdown")).toBe("txt");
    expect(fileExtension("application/octet-stream")).toBe("bin");
  });
});

describe("a JSON document cut short", () => {
  const closed = (text: string) => parseJsonPrefix(text);

  it("keeps every complete value and closes what the cut left open", () => {
    expect(closed('{"a":{"b":[1,2,{"c":true}],"d":nu')).toEqual({ value: { a: { b: [1, 2, { c: true }] } }, openAt: "/a" });
    expect(closed("[1,2,")).toEqual({ value: [1, 2], openAt: "" });
    expect(closed("[[[")).toEqual({ value: [[[]]], openAt: "/0/0" });
    expect(closed('{"a":')).toEqual({ value: {}, openAt: "" });
    expect(closed('{"a"')).toEqual({ value: {}, openAt: "" });
    expect(closed('{"long key cut')).toEqual({ value: {}, openAt: "" });
    expect(closed(' \n {"a/b~":[{}, []], "x": 1  ')).toEqual({ value: { "a/b~": [{}, []], x: 1 }, openAt: "" });
  });

  it("a string cut inside keeps what it has, never a split escape", () => {
    expect(closed('{"rows":"xxxx')).toEqual({ value: { rows: "xxxx" }, openAt: "" });
    expect(closed('["a\\n b\\')).toEqual({ value: ["a\n b"], openAt: "" });
    expect(closed('["a\\u00')).toEqual({ value: ["a"], openAt: "" });
    expect(closed('["a\\\\')).toEqual({ value: ["a\\"], openAt: "" });
    expect(closed('["\\ud83d\\ude00 \\"quoted')).toEqual({ value: ['😀 "quoted'], openAt: "" });
    expect(closed('"a root string cut')).toEqual({ value: "a root string cut", openAt: null });
  });

  it("a number or literal the cut may have shortened is dropped", () => {
    expect(closed('{"a":1,"b":12')).toEqual({ value: { a: 1 }, openAt: "" });
    expect(closed("[true,fa")).toEqual({ value: [true], openAt: "" });
    expect(closed("[1.5e3 ")).toEqual({ value: [1500], openAt: "" });
  });

  it("not the start of a JSON document, or a whole one: undefined", () => {
    for (const text of ['{"a":1}', "[1] and more", "42", '"whole"', "tru", "", "  ", "{a:1", '{"a" 1', "[1 2", "[}", '{"a":1]', "<xml>", "[2026-11-24] log", '{"a":"\u0001', '["\\x"']) {
      expect(closed(text), text).toBeUndefined();
    }
  });

  it("the first 256 KiB of a 5 MiB document: a tree of its first part", () => {
    const rows = Array.from({ length: 70_000 }, (_, i) => ({ id: `row_${i}`, price: { amount: i, currency: "EUR" }, tags: ["a", "b"] }));
    const text = JSON.stringify({ type: "export.ready", data: { rows } });
    expect(text.length).toBeGreaterThan(5 * 1024 * 1024);
    const prefix = closed(text.slice(0, 256 * 1024))!;
    const kept = (prefix.value as { data: { rows: unknown[] } }).data.rows;
    expect(prefix.value).toMatchObject({ type: "export.ready" });
    expect(kept.length).toBeGreaterThan(3000);
    expect(kept.slice(0, -1)).toEqual(rows.slice(0, kept.length - 1));
    expect(prefix.openAt?.startsWith("/data/rows")).toBe(true);
  });
});
