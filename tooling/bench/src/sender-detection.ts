// node tooling/bench/dist/sender-detection.js — what naming a capture's sender and event type
// costs per body size (it runs on the capture path, before the row is written), against the
// JSON.parse of the decoded body that detection did before issue 29 (up to 1 MiB; larger
// bodies were not read at all and came out "unknown"). Alternating rounds, medians.
import { detectSender, type HeaderList } from "@rehook/core";
import { STRIPE_LIKE_BODY } from "./webhook-body.js";

const HEADERS: HeaderList = [
  ["host", "127.0.0.1"],
  ["content-type", "application/json"],
  ["user-agent", "Stripe/1.0 (+https://stripe.com/docs/webhooks)"],
];
const MiB = 1024 * 1024;
const ROUNDS = 7;

/** Rows of small objects up to about `bytes`, then the type: the key comes after the big object. */
function rowsThenType(bytes: number): Buffer {
  const row = JSON.stringify({ id: "row_000000", sku: "SKU-00000", quantity: 7, note: "lorem ipsum dolor sit amet", price: { amount: 21, currency: "EUR" } });
  const rows = Array.from({ length: Math.ceil(bytes / (row.length + 1)) }, () => row).join(",");
  return Buffer.from(`{"object":"event","data":{"rows":[${rows}]},"type":"export.ready"}`);
}

const cases: Array<[string, Buffer]> = [
  ["566 B Stripe-like event", Buffer.from(STRIPE_LIKE_BODY)],
  ["300 KB, type after the rows", rowsThenType(300_000)],
  ["5 MiB, type after the rows", rowsThenType(5 * MiB)],
  ["5 MiB, one long string", Buffer.from(JSON.stringify({ type: "export.ready", rows: "x".repeat(5 * MiB) }))],
  ["10 MiB, type after the rows", rowsThenType(10 * MiB)],
];

const decoder = new TextDecoder();
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const format = (ms: number) => (ms < 1 ? `${(ms * 1000).toFixed(2)} µs` : `${ms.toFixed(2)} ms`);

/** Milliseconds per call of `run`, over enough calls to take about 200 ms. */
function timed(run: () => unknown): number {
  let calls = 1;
  for (;;) {
    const started = performance.now();
    for (let i = 0; i < calls; i += 1) run();
    const elapsed = performance.now() - started;
    if (elapsed > 200 || calls > 1_000_000) return elapsed / calls;
    calls *= elapsed < 20 ? 10 : 2;
  }
}

console.log(`bench:sender-detection  ${ROUNDS} alternating rounds, medians, node ${process.version}\n`);
for (const [name, body] of cases) {
  const detect = () => detectSender({ headers: HEADERS, body });
  const parse = () => JSON.parse(decoder.decode(body)) as unknown;
  const detections: number[] = [];
  const parses: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    detections.push(timed(detect));
    parses.push(timed(parse));
  }
  const { eventType } = detect();
  console.log(`${name.padEnd(30)} ${String(body.byteLength).padStart(9)} B   detectSender ${format(median(detections)).padStart(10)}   decode + JSON.parse ${format(median(parses)).padStart(10)}   type ${eventType}`);
}
