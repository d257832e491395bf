import { createHash } from "node:crypto";
import { decodeUtf8Text } from "../payload-view.js";
import { MAX_DIFF_CHARS } from "./lines.js";

/** A response body as a diff compares it. */
export type ComparableBody =
  | { kind: "text"; text: string; /** Parsed and printed with sorted keys. */ json: boolean }
  | { kind: "binary"; size: number; sha256: string };

/** Deeper JSON than this is compared as its raw text. */
const MAX_JSON_DEPTH = 200;

class TooLong extends Error {}
class TooDeep extends Error {}

/**
 * JSON printed with 2-space indents and object keys sorted, so key order and spacing are not
 * differences. Stops past `maxChars` (deep nesting can make the indents far bigger than the input).
 */
export function stableJson(value: unknown, maxChars = MAX_DIFF_CHARS): { text: string; cut: boolean } {
  const parts: string[] = [];
  let size = 0;
  const put = (text: string) => {
    parts.push(text);
    size += text.length;
    if (size > maxChars) throw new TooLong();
  };
  const print = (node: unknown, depth: number) => {
    if (depth > MAX_JSON_DEPTH) throw new TooDeep();
    const inner = "  ".repeat(depth + 1);
    if (Array.isArray(node)) {
      if (node.length === 0) return put("[]");
      put("[");
      node.forEach((item, index) => {
        put(`${index === 0 ? "" : ","}\n${inner}`);
        print(item, depth + 1);
      });
      return put(`\n${"  ".repeat(depth)}]`);
    }
    if (node !== null && typeof node === "object") {
      const keys = Object.keys(node).sort();
      if (keys.length === 0) return put("{}");
      put("{");
      keys.forEach((key, index) => {
        put(`${index === 0 ? "" : ","}\n${inner}${JSON.stringify(key)}: `);
        print((node as Record<string, unknown>)[key], depth + 1);
      });
      return put(`\n${"  ".repeat(depth)}}`);
    }
    put(JSON.stringify(node));
  };
  try {
    print(value, 0);
    return { text: parts.join(""), cut: false };
  } catch (error) {
    // One character past the limit: a line diff given it sees that it was cut, and says so.
    if (error instanceof TooLong) return { text: parts.join("").slice(0, maxChars + 1), cut: true };
    throw error;
  }
}

/**
 * The body ready to diff: JSON normalised (stable keys, 2-space indents), other UTF-8 text
 * as it is, anything else binary with its size and SHA-256. Null (no body) is empty text.
 */
export function comparableBody(body: Uint8Array | null): ComparableBody {
  if (body === null || body.byteLength === 0) return { kind: "text", text: "", json: false };
  const text = decodeUtf8Text(body);
  if (text === undefined) return { kind: "binary", size: body.byteLength, sha256: createHash("sha256").update(body).digest("hex") };
  if (text.trim() === "") return { kind: "text", text, json: false };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { kind: "text", text, json: false };
  }
  try {
    // A cut print is still the JSON's beginning: the line diff cuts it anyway and says so.
    return { kind: "text", text: stableJson(value).text, json: true };
  } catch (error) {
    if (error instanceof TooDeep) return { kind: "text", text, json: false };
    throw error;
  }
}
