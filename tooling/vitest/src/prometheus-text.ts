/**
 * A small reader of the Prometheus text format (version 0.0.4) for tests: what a scraper
 * would see. Comment lines give each family's TYPE; every other line is one sample.
 */
export interface PromSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface PromText {
  samples: PromSample[];
  /** Family name → counter, gauge, histogram, summary or untyped. */
  types: Map<string, string>;
  /**
   * The value of the sample with exactly these labels, or undefined when there is none.
   * Throws on two matches (the text would be invalid).
   */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?[ \t]+(\S+)(?:[ \t]+-?\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/gy;

function unescape(value: string): string {
  return value.replace(/\\(.)/g, (_all, char: string) => (char === "n" ? "\n" : char));
}

function number(text: string): number {
  const lower = text.toLowerCase();
  if (lower === "nan") return Number.NaN;
  if (lower === "+inf") return Number.POSITIVE_INFINITY;
  if (lower === "-inf") return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (Number.isNaN(value)) throw new Error(`not a sample value: ${text}`);
  return value;
}

export function parsePromText(text: string): PromText {
  const samples: PromSample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (line.startsWith("#")) {
      const type = /^# TYPE (\S+) (\S+)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    const labelText = match[2] ?? "";
    LABEL.lastIndex = 0;
    let read = 0;
    for (let label = LABEL.exec(labelText); label; label = LABEL.exec(labelText)) {
      labels[label[1]!] = unescape(label[2]!);
      read = LABEL.lastIndex;
    }
    if (read !== labelText.length) throw new Error(`malformed labels: ${line}`);
    samples.push({ name: match[1]!, labels, value: number(match[3]!) });
  }
  const same = (a: Record<string, string>, b: Record<string, string>) =>
    Object.keys(a).length === Object.keys(b).length && Object.entries(b).every(([key, value]) => a[key] === value);
  return {
    samples,
    types,
    value(name, labels = {}) {
      const found = samples.filter((sample) => sample.name === name && same(sample.labels, labels));
      if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
      return found[0]?.value;
    },
  };
}
