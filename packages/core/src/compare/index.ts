import { createHash } from "node:crypto";
import { comparableBody } from "./body.js";
import { diffLines, type DiffLine } from "./lines.js";

export * from "./body.js";
export * from "./headers.js";
export * from "./lines.js";

/** Two response bodies side by side: a line diff of text, sizes and digests of binary. */
export type BodyComparison =
  | { kind: "lines"; json: boolean; equal: boolean; lines: DiffLine[]; cut: string | null }
  | { kind: "binary"; equal: boolean; left: { size: number; sha256: string }; right: { size: number; sha256: string } };

/** Compares two bodies: a line diff (JSON normalised first) unless either is binary. */
export function compareBodies(left: Uint8Array | null, right: Uint8Array | null): BodyComparison {
  const a = comparableBody(left);
  const b = comparableBody(right);
  if (a.kind === "binary" || b.kind === "binary") {
    const side = (raw: Uint8Array | null) => ({ size: raw?.byteLength ?? 0, sha256: createHash("sha256").update(raw ?? new Uint8Array()).digest("hex") });
    const l = side(left);
    const r = side(right);
    return { kind: "binary", equal: l.sha256 === r.sha256, left: l, right: r };
  }
  const diff = diffLines(a.text, b.text);
  return { kind: "lines", json: a.json && b.json, equal: a.text === b.text, lines: diff.lines, cut: diff.cut };
}
