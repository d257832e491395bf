/** Most lines of each side a line diff reads; the rest is cut (and said to be). */
export const MAX_DIFF_LINES = 2_000;
/** Most characters of each side a line diff reads (256 Ki, about 256 KiB of mostly ASCII text). */
export const MAX_DIFF_CHARS = 256 * 1024;

export interface DiffLine {
  kind: "same" | "added" | "removed";
  /** 1-based line numbers on each side (null on the side the line is not on). */
  left: number | null;
  right: number | null;
  text: string;
}

export interface LineDiff {
  lines: DiffLine[];
  /** Why the diff stops before the end of a side ("diff cut at 2,000 lines"), or null. */
  cut: string | null;
}

function capped(text: string, limits: { lines: number; chars: number }): { lines: string[]; cut: string | null } {
  let cut: string | null = null;
  if (text.length > limits.chars) {
    text = text.slice(0, limits.chars);
    cut = `diff cut at ${Math.round(limits.chars / 1024).toLocaleString("en-US")} KiB`;
  }
  const lines = text === "" ? [] : text.split(/\r?\n/);
  if (lines.length > limits.lines) {
    lines.length = limits.lines;
    cut = `diff cut at ${limits.lines.toLocaleString("en-US")} lines`;
  }
  return { lines, cut };
}

/**
 * A line diff of two texts (longest common subsequence), each side cut at `MAX_DIFF_LINES`
 * lines and `MAX_DIFF_CHARS` characters first, so time and memory are bounded (at most
 * 2,001² two-byte cells) whatever the bodies. Lines are compared as interned numbers, so a
 * long line costs its length once, not once per comparison.
 */
export function diffLines(left: string, right: string, limits = { lines: MAX_DIFF_LINES, chars: MAX_DIFF_CHARS }): LineDiff {
  const a = capped(left, limits);
  const b = capped(right, limits);
  const ids = new Map<string, number>();
  const intern = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const x = Int32Array.from(a.lines, intern);
  const y = Int32Array.from(b.lines, intern);

  // The common start and end need no table.
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start++;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) (endX--, endY--);

  const n = endX - start;
  const m = endY - start;
  const width = m + 1;
  // lcs[i * width + j]: the longest common subsequence of x[start+i..endX) and y[start+j..endY).
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = x[start + i] === y[start + j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }

  const lines: DiffLine[] = [];
  const same = (i: number, j: number) => lines.push({ kind: "same", left: i + 1, right: j + 1, text: a.lines[i]! });
  for (let k = 0; k < start; k++) same(k, k);
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[start + i] === y[start + j]) {
      same(start + i, start + j);
      i++, j++;
    } else if (j === m || (i < n && lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      // On a tie the removal goes first: the old lines before the new, as diffs read.
      lines.push({ kind: "removed", left: start + i + 1, right: null, text: a.lines[start + i]! });
      i++;
    } else {
      lines.push({ kind: "added", left: null, right: start + j + 1, text: b.lines[start + j]! });
      j++;
    }
  }
  for (let k = 0; k < x.length - endX; k++) same(endX + k, endY + k);
  return { lines, cut: a.cut ?? b.cut };
}
