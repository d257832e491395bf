import { brotliCompressSync, constants, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { bodyView, decodeContentEncoding, DECODED_BODY_MAX_BYTES, HEX_PREVIEW_BYTES, inspectEventBody } from "../src/index.js";

// The event page's view of a body: its text exactly, the start of binary for a hex dump,
// multipart parts, and a Content-Encoding undone server-side with a bound on the output.

const json = JSON.stringify({ type: "invoice.paid", lines: Array.from({ length: 50 }, (_, i) => ({ i, note: "é" })) });
const event = (body: Uint8Array, headers: Array<[string, string]>, bodyTruncated = false) => ({
  body,
  bodyTruncated,
  contentType: "application/json",
  headers: [["Content-Type", "application/json"], ...headers] as Array<[string, string]>,
});

describe("the inspector's view of a body", () => {
  it("keeps text exactly, a byte order mark included", () => {
    const view = bodyView(Buffer.from("\uFEFF{\"a\": 1}  "), "application/json");
    expect(view).toEqual({ text: "\uFEFF{\"a\": 1}  ", base64: null, bytes: 13, multipart: null });
  });

  it("sends the first 64 KiB of binary as base64, for the hex dump", () => {
    const binary = Buffer.alloc(100_000, 0xff);
    const view = bodyView(binary, "application/octet-stream");
    expect(view.text).toBeNull();
    expect(Buffer.from(view.base64!, "base64")).toEqual(binary.subarray(0, HEX_PREVIEW_BYTES));
    expect(view.bytes).toBe(100_000);
  });

  it("lists multipart parts from the boundary, binary parts included", () => {
    const body = Buffer.concat([
      Buffer.from('--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a.bin"\r\nContent-Type: application/octet-stream\r\n\r\n'),
      Buffer.from([0, 1, 2, 3]),
      Buffer.from("\r\n--XyZ--\r\n"),
    ]);
    const view = bodyView(body, 'multipart/form-data; boundary="XyZ"');
    expect(view.text).toBeNull();
    expect(view.multipart).toMatchObject({ closed: true, parts: [{ name: "file", filename: "a.bin", size: 4, preview: null }] });
  });
});

describe("Content-Encoding, undone on the server", () => {
  it("decodes gzip, deflate (zlib or raw) and br", async () => {
    for (const [encoding, bytes] of [
      ["gzip", gzipSync(json)],
      ["x-gzip", gzipSync(json)],
      ["deflate", deflateSync(json)],
      ["deflate", deflateRawSync(json)],
      ["br", brotliCompressSync(json)],
      ["GZIP ", gzipSync(json)],
    ] as const) {
      const inspected = await inspectEventBody(event(bytes, [["Content-Encoding", encoding]]));
      expect(inspected.text, encoding).toBeNull();
      expect(inspected.decoded, encoding).toMatchObject({ ok: true, cut: false, fromPreview: false, view: { text: json, bytes: Buffer.byteLength(json) } });
    }
  });

  it("undoes stacked codings in reverse order, repeated headers included", async () => {
    const body = brotliCompressSync(gzipSync(json));
    expect((await inspectEventBody(event(body, [["Content-Encoding", "gzip, br"]]))).decoded).toMatchObject({ encoding: "gzip, br", ok: true, view: { text: json } });
    expect((await inspectEventBody(event(body, [["Content-Encoding", "gzip"], ["content-encoding", "br"]]))).decoded).toMatchObject({ ok: true, view: { text: json } });
  });

  it("stops at 1 MiB of output: a decompression bomb is cut, quickly", async () => {
    const bomb = gzipSync(Buffer.alloc(64 * 1024 * 1024, 0x61), { level: 9 });
    expect(bomb.length).toBeLessThan(100 * 1024);
    const started = performance.now();
    const decoded = await decodeContentEncoding(bomb, "gzip", { partial: false, contentType: "text/plain" });
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(decoded).toMatchObject({ ok: true, cut: true, view: { bytes: DECODED_BODY_MAX_BYTES } });
    if (decoded.ok) expect(decoded.view.text).toBe("a".repeat(DECODED_BODY_MAX_BYTES));
  });

  it("decodes the start of a cut body (the stored preview) without an error", async () => {
    const big = Buffer.from(JSON.stringify({ rows: Array.from({ length: 40_000 }, (_, i) => `row ${i} ${Math.sin(i)}`) }));
    for (const [encoding, compressed] of [
      ["gzip", gzipSync(big)],
      ["br", brotliCompressSync(big, { params: { [constants.BROTLI_PARAM_QUALITY]: 5 } })],
      ["deflate", deflateSync(big)],
    ] as const) {
      const preview = compressed.subarray(0, Math.floor(compressed.length / 2));
      const inspected = await inspectEventBody(event(preview, [["Content-Encoding", encoding]], true));
      expect(inspected.decoded, encoding).toMatchObject({ ok: true, fromPreview: true });
      if (inspected.decoded?.ok) {
        expect(inspected.decoded.view.bytes, encoding).toBeGreaterThan(1000);
        expect(big.toString().startsWith(inspected.decoded.view.text!), encoding).toBe(true);
      }
    }
  });

  it("explains a corrupt stream or a coding it does not decode, never throws", async () => {
    const corrupt = await inspectEventBody(event(Buffer.from("not gzip at all"), [["Content-Encoding", "gzip"]]));
    expect(corrupt.decoded).toMatchObject({ encoding: "gzip", ok: false, error: expect.stringMatching(/^The body is not valid gzip: /) });
    expect(corrupt.text).toBe("not gzip at all");
    const truncated = gzipSync(json).subarray(0, 40);
    expect((await inspectEventBody(event(truncated, [["Content-Encoding", "gzip"]]))).decoded).toMatchObject({ ok: false, error: expect.stringContaining("unexpected end of file") });
    expect((await inspectEventBody(event(Buffer.from("x"), [["Content-Encoding", "zstd"]]))).decoded).toMatchObject({ ok: false, error: expect.stringContaining('"zstd"') });
    expect((await inspectEventBody(event(Buffer.from("abc"), [["Content-Encoding", "br"]]))).decoded).toMatchObject({ ok: false });
  });

  it("leaves a body without a coding, identity, or empty alone", async () => {
    expect((await inspectEventBody(event(Buffer.from(json), []))).decoded).toBeNull();
    expect((await inspectEventBody(event(Buffer.from(json), [["Content-Encoding", "identity"]]))).decoded).toBeNull();
    expect((await inspectEventBody(event(Buffer.alloc(0), [["Content-Encoding", "gzip"]]))).decoded).toBeNull();
  });
});
