// node tooling/bench/dist/metrics-cost.js — what counting adds to one capture, measured
// alone, without the end-to-end benchmark's noise: RehookMetrics.captureStored and the
// writer's captureBatch (amortised over a batch of 32), then the same with the capture
// handler's two clock reads. Reports nanoseconds per capture and the garbage collections
// that ran during 5 million of them (none: nothing was allocated; each young-generation
// collection means about 16 MiB allocated).
import { performance, PerformanceObserver } from "node:perf_hooks";
import { RehookMetrics } from "@rehook/http";

const CALLS = 5_000_000;
const WARMUP = 200_000;
const ROUNDS = 5;
const metrics = new RehookMetrics({ defaultMetrics: false });
let collections = 0;
new PerformanceObserver((list) => {
  collections += list.getEntries().length;
}).observe({ entryTypes: ["gc"] });

let sink = 0;
const cases: Record<string, (i: number) => void> = {
  // The loop alone: subtracted from the others.
  "loop only": (i) => {
    sink += i & 1;
  },
  "counting (increments and bucket walks)": (i) => {
    metrics.captureStored(0.003);
    if (i % 32 === 0) metrics.captureBatch(32);
  },
  "counting + the handler's two clock reads": (i) => {
    const started = performance.now();
    metrics.captureStored((performance.now() - started) / 1000);
    if (i % 32 === 0) metrics.captureBatch(32);
  },
};

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

async function measure(work: (i: number) => void): Promise<{ ns: number; collections: number }> {
  for (let i = 0; i < WARMUP; i += 1) work(i); // optimised code from here on
  await settle();
  collections = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i += 1) work(i);
  const ns = Number(process.hrtime.bigint() - started) / CALLS;
  await settle(); // GC entries are delivered asynchronously
  return { ns, collections };
}

async function main() {
  process.stdout.write(`metrics-cost  ${CALLS.toLocaleString("en")} captures per round, ${ROUNDS} rounds, node ${process.version}\n\n`);
  const medians = new Map<string, number>();
  for (const [name, work] of Object.entries(cases)) {
    const ns: number[] = [];
    const gcs: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const result = await measure(work);
      ns.push(result.ns);
      gcs.push(result.collections);
    }
    const median = [...ns].sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
    medians.set(name, median);
    const net = name === "loop only" ? "" : `   (${(median - medians.get("loop only")!).toFixed(1)} ns over the loop)`;
    process.stdout.write(`${name.padEnd(42)} median ${median.toFixed(1)} ns per capture${net}   GCs per round: ${gcs.join(", ")}\n`);
  }
  const text = await metrics.text();
  const counted = text.split("\n").find((line) => line.startsWith('rehook_events_captured_total{outcome="stored"}'));
  const expected = 2 * ROUNDS * (CALLS + WARMUP);
  process.stdout.write(`\n${counted}   (expected ${expected})${sink < 0 ? "" : ""}\n`);
  if (counted !== `rehook_events_captured_total{outcome="stored"} ${expected}`) process.exitCode = 1;
}

void main();
