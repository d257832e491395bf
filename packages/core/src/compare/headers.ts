import type { HeaderList } from "../headers.js";

export type HeaderChangeKind = "same" | "added" | "removed" | "changed";

/** One header name across both responses; repeated headers are joined with ", " as HTTP allows. */
export interface HeaderChange {
  /** The name as first seen (left first). */
  name: string;
  kind: HeaderChangeKind;
  left: string | null;
  right: string | null;
}

function joined(headers: HeaderList | null): Map<string, { name: string; value: string }> {
  const byName = new Map<string, { name: string; value: string }>();
  for (const [name, value] of headers ?? []) {
    const key = name.toLowerCase();
    const seen = byName.get(key);
    if (seen) seen.value = `${seen.value}, ${value}`;
    else byName.set(key, { name, value });
  }
  return byName;
}

/**
 * Left against right by case-insensitive name, in order of first appearance (the left's
 * names, then those only the right has). Null (no response) counts as no headers.
 */
export function diffHeaders(left: HeaderList | null, right: HeaderList | null): HeaderChange[] {
  const a = joined(left);
  const b = joined(right);
  const changes: HeaderChange[] = [];
  for (const [key, { name, value }] of a) {
    const other = b.get(key);
    if (!other) changes.push({ name, kind: "removed", left: value, right: null });
    else changes.push({ name, kind: other.value === value ? "same" : "changed", left: value, right: other.value });
  }
  for (const [key, { name, value }] of b) {
    if (!a.has(key)) changes.push({ name, kind: "added", left: null, right: value });
  }
  return changes;
}
