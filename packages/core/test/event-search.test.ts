import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { SEARCHED_BODY_BYTES, SEARCHED_CODED_BYTES, searchableBody, searchableBodyOf, searchPatterns } from "../src/index.js";

describe("search patterns", () => {
  it("read the text's UTF-8 bytes as Latin-1, with wildcards and backslashes taken literally", () => {
    expect(searchPatterns("Invoice.paid")).toEqual({ body: "%Invoice.paid%", escapedBody: "%Invoice.paid%", headers: "%Invoice.paid%" });
    expect(searchPatterns("50%_off")).toMatchObject({ body: "%50\\%\\_off%", headers: "%50\\%\\_off%" });
    // é is C3 A9 in UTF-8: the two Latin-1 characters those bytes are.
    expect(searchPatterns("é").body).toBe("%\u00c3\u00a9%");
    // In a body's escape form (bodies with a NUL byte) the same bytes are octal escapes, each backslash escaped for LIKE.
    expect(searchPatterns("é").escapedBody).toBe("%\\\\303\\\\251%");
    expect(searchPatterns("a\\b").escapedBody).toBe("%a\\\\\\\\b%");
    // In the headers' JSON a backslash and a quote are escaped; LIKE escapes the backslashes again.
    expect(searchPatterns('a\\b"c').headers).toBe('%a\\\\\\\\b\\\\"c%');
  });
});

describe("the searchable form of a body", () => {
  const coded = (encoding: string): Array<[string, string]> => [["Content-Encoding", encoding]];

  it("is the bytes as Latin-1, or their escape form when they hold a NUL, as PostgreSQL writes them", () => {
    expect(searchableBody(Buffer.from("café"))).toEqual({ escaped: false, text: "caf\u00c3\u00a9" });
    expect(searchableBody(Buffer.from([0x61, 0x00, 0x5c, 0xff]))).toEqual({ escaped: true, text: "a\\000\\\\\\377" });
    expect(searchableBody(Buffer.alloc(SEARCHED_BODY_BYTES + 10, 0x61)).text).toHaveLength(SEARCHED_BODY_BYTES);
  });

  it("is decoded for gzip, deflate (with or without the zlib wrapper), br and a list of them", async () => {
    const text = Buffer.from('{"word":"Quokka"}');
    for (const [encoding, body] of [
      ["gzip", gzipSync(text)],
      ["x-gzip", gzipSync(text)],
      ["deflate", deflateSync(text)],
      ["deflate", deflateRawSync(text)],
      ["BR", brotliCompressSync(text)],
      ["gzip, identity, br", brotliCompressSync(gzipSync(text))],
    ] as const) {
      expect(await searchableBodyOf(body, coded(encoding), false), encoding).toEqual({ escaped: false, text: text.toString("latin1") });
    }
  });

  it("keeps the bytes as received for an unknown coding, a corrupt stream or no coding", async () => {
    const body = Buffer.from("not compressed at all");
    for (const headers of [coded("zstd"), coded("gzip"), coded("identity"), []]) {
      expect(await searchableBodyOf(body, headers, false)).toEqual({ escaped: false, text: "not compressed at all" });
    }
  });

  it("decodes at most SEARCHED_BODY_BYTES, from a bomb or from the start of a longer body", async () => {
    const bomb = gzipSync(Buffer.alloc(50 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(SEARCHED_CODED_BYTES);
    const decoded = await searchableBodyOf(bomb, coded("gzip"), false);
    expect(decoded.text).toBe(" ".repeat(SEARCHED_BODY_BYTES));

    // Only the first SEARCHED_CODED_BYTES of an incompressible body are read: decoded as far as they go.
    const noise = Buffer.from(Array.from({ length: 300 * 1024 }, (_, k) => (k * 7919) % 251));
    const start = gzipSync(noise, { level: 0 }).subarray(0, SEARCHED_CODED_BYTES);
    const partial = await searchableBodyOf(start, coded("gzip"), true);
    expect(partial).toEqual(searchableBody(noise.subarray(0, SEARCHED_BODY_BYTES)));
  });
});
