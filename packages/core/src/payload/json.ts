/**
 * JSON helpers for the payload inspector's tree: node addresses (JSON Pointers), which nodes
 * start expanded, search, and a pretty-print that refuses to explode. Walks are iterative,
 * so a deeply nested document cannot overflow the stack.
 */

export type JsonContainer = Record<string, unknown> | unknown[];

export function isContainer(value: unknown): value is JsonContainer {
  return typeof value === "object" && value !== null;
}

/** One step of a JSON Pointer (RFC 6901): "~" and "/" escaped. */
export function pointerStep(key: string | number): string {
  return `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** The pointers of a node's ancestors, root ("") first, the node itself excluded. */
export function ancestorPointers(pointer: string): string[] {
  const ancestors = [""];
  for (let at = pointer.indexOf("/", 1); at > 0; at = pointer.indexOf("/", at + 1)) ancestors.push(pointer.slice(0, at));
  return pointer === "" ? [] : ancestors;
}

/** A container's entries in order: [key, value] (array indices as numbers). */
export function jsonEntries(value: JsonContainer): Array<[string | number, unknown]> {
  return Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value);
}

function childCount(value: JsonContainer): number {
  return Array.isArray(value) ? value.length : Object.keys(value).length;
}

/**
 * Containers breadth first (the root first), as pointers, up to `limit` of them and down to
 * `maxDepth` levels below the root, looking at the first `childLimit` children of each
 * (those a tree shows before "Show more"); `capped` when some were left out.
 */
export function jsonContainers(value: unknown, options: { limit?: number; maxDepth?: number; childLimit?: number } = {}): { pointers: string[]; capped: boolean } {
  const { limit = 5000, maxDepth = 64, childLimit = Infinity } = options;
  const pointers: string[] = [];
  if (!isContainer(value)) return { pointers, capped: false };
  let level: Array<[string, JsonContainer]> = [["", value]];
  for (let depth = 0; level.length > 0; depth += 1) {
    const next: Array<[string, JsonContainer]> = [];
    for (const [pointer, container] of level) {
      if (pointers.length >= limit || depth > maxDepth) return { pointers, capped: true };
      pointers.push(pointer);
      const entries = jsonEntries(container);
      for (let i = 0; i < entries.length && i < childLimit; i += 1) {
        const [key, child] = entries[i]!;
        if (isContainer(child)) next.push([pointer + pointerStep(key), child]);
      }
    }
    level = next;
  }
  return { pointers, capped: false };
}

/**
 * What a tree shows at first: the root open, then containers breadth first while the rows
 * on screen stay within `rows` and the depth within `maxDepth`. A large document opens a
 * level or two; a small one opens whole.
 */
export function initialExpansion(value: unknown, options: { rows?: number; maxDepth?: number } = {}): string[] {
  const { rows = 150, maxDepth = 4 } = options;
  if (!isContainer(value)) return [];
  const expanded = [""];
  let shown = 1 + childCount(value);
  let level: Array<[string, JsonContainer]> = [["", value]];
  for (let depth = 1; depth <= maxDepth && level.length > 0; depth += 1) {
    const next: Array<[string, JsonContainer]> = [];
    for (const [pointer, container] of level) {
      for (const [key, child] of jsonEntries(container)) {
        if (!isContainer(child)) continue;
        const count = childCount(child);
        if (shown + count > rows) return expanded;
        const childPointer = pointer + pointerStep(key);
        expanded.push(childPointer);
        shown += count;
        next.push([childPointer, child]);
      }
    }
    level = next;
  }
  return expanded;
}

export interface JsonMatch {
  pointer: string;
  /** The key matched (the node's name in its parent) or its value (primitives only). */
  on: "key" | "value";
}

/** A primitive as the tree prints it (strings quoted as JSON). */
export function jsonScalarText(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/**
 * Nodes whose key or primitive value contains `query` (case-insensitive), in document order,
 * at most `limit` (`capped` when there were more).
 */
export function searchJson(value: unknown, query: string, limit = 1000): { matches: JsonMatch[]; capped: boolean } {
  const needle = query.toLowerCase();
  const matches: JsonMatch[] = [];
  if (!needle) return { matches, capped: false };
  const stack: Array<[string, string | number | null, unknown]> = [["", null, value]];
  while (stack.length > 0) {
    const [pointer, key, node] = stack.pop()!;
    if (typeof key === "string" && key.toLowerCase().includes(needle)) {
      if (matches.length >= limit) return { matches, capped: true };
      matches.push({ pointer, on: "key" });
    }
    if (isContainer(node)) {
      const entries = jsonEntries(node);
      for (let i = entries.length - 1; i >= 0; i -= 1) {
        const [childKey, child] = entries[i]!;
        stack.push([pointer + pointerStep(childKey), childKey, child]);
      }
    } else if ((typeof node === "string" ? node : String(node)).toLowerCase().includes(needle)) {
      if (matches.length >= limit) return { matches, capped: true };
      matches.push({ pointer, on: "value" });
    }
  }
  return { matches, capped: false };
}

/**
 * JSON.stringify(value, null, 2), unless the indentation alone would make it longer than
 * `maxChars` (a deeply nested document grows quadratically when indented) or it is too
 * deep to print: then undefined, and the caller shows the text as it came.
 */
export function prettyJson(value: unknown, maxChars = 8 * 1024 * 1024): string | undefined {
  let indentation = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    indentation += 2 * depth + 1;
    if (isContainer(node)) {
      indentation += 2 * depth + 1; // the closing bracket's line
      for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
    }
    if (indentation > maxChars) return undefined;
  }
  try {
    const pretty = JSON.stringify(value, null, 2);
    return pretty.length > maxChars ? undefined : pretty;
  } catch {
    return undefined;
  }
}
