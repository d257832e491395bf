// node tooling/bench/dist/verification-cost.js — what checking a signature adds to one capture:
// nanoseconds per verification for each scheme on a 1 KiB and a 64 KiB body, next to a bare
// HMAC-SHA256 over the same body measured in the same run (the floor every scheme pays).
// Every request is correctly signed, so each verifier runs its full path to "valid".
// Prints a markdown table; runs in about 12 s.
import { createHash, createHmac } from "node:crypto";
import { createVerifier, signStandardWebhook, type SignedRequest, type VerificationRule } from "@rehook/core";

const ROUNDS = 5;
const ROUND_MS = 60;
const NOW = 1_790_000_000;
const URL_BASE = "https://hooks.example.com/api/webhook/bench";
const SECRET = "bench-signing-secret";
const SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

/** A JSON body of exactly `size` bytes. */
function jsonBody(size: number): Buffer {
  const shell = '{"type":"bench","padding":""}';
  return Buffer.from(shell.replace('""', `"${"x".repeat(size - shell.length)}"`));
}

/** A form body of exactly `size` bytes in 80-byte fields (64 KiB: ~820, under the verifier's 1000-parameter cap). */
function formBody(size: number): Buffer {
  const fields: string[] = [];
  let length = -1;
  for (let i = 0; length + 80 < size; i += 1) {
    const field = `Field${String(i).padStart(4, "0")}=${"v".repeat(69)}`;
    fields.push(field);
    length += field.length + 1;
  }
  fields.push(`Last=${"v".repeat(size - length - 1 - "Last=".length)}`);
  return Buffer.from(fields.join("&"));
}

const hmacHex = (key: string, ...parts: Array<string | Buffer>) => parts.reduce((mac, part) => mac.update(part), createHmac("sha256", key)).digest("hex");

interface Case {
  name: string;
  rule: VerificationRule;
  request: (size: number) => SignedRequest;
}

const base = (body: Buffer, headers: Array<[string, string]>, url = URL_BASE): SignedRequest => ({
  method: "POST",
  headers: [["Content-Type", "application/json"], ...headers],
  body,
  url,
  nowSeconds: NOW,
});

// Signed here with node:crypto (the providers' libraries are test-only dependencies of core).
const cases: Case[] = [
  {
    name: "stripe",
    rule: { scheme: "stripe", secret: SECRET },
    request: (size) => {
      const body = jsonBody(size);
      return base(body, [["Stripe-Signature", `t=${NOW},v1=${hmacHex(SECRET, `${NOW}.`, body)}`]]);
    },
  },
  {
    name: "github",
    rule: { scheme: "github", secret: SECRET },
    request: (size) => {
      const body = jsonBody(size);
      return base(body, [["X-Hub-Signature-256", `sha256=${hmacHex(SECRET, body)}`]]);
    },
  },
  {
    name: "shopify",
    rule: { scheme: "shopify", secret: SECRET },
    request: (size) => {
      const body = jsonBody(size);
      return base(body, [["X-Shopify-Hmac-Sha256", createHmac("sha256", SECRET).update(body).digest("base64")]]);
    },
  },
  {
    name: "slack",
    rule: { scheme: "slack", secret: SECRET },
    request: (size) => {
      const body = jsonBody(size);
      return base(body, [
        ["X-Slack-Request-Timestamp", String(NOW)],
        ["X-Slack-Signature", `v0=${hmacHex(SECRET, `v0:${NOW}:`, body)}`],
      ]);
    },
  },
  {
    name: "twilio (JSON, bodySHA256)",
    rule: { scheme: "twilio", secret: SECRET },
    request: (size) => {
      const body = jsonBody(size);
      const url = `${URL_BASE}?bodySHA256=${createHash("sha256").update(body).digest("hex")}`;
      return base(body, [["X-Twilio-Signature", createHmac("sha1", SECRET).update(url).digest("base64")]], url);
    },
  },
  {
    name: "twilio (form parameters)",
    rule: { scheme: "twilio", secret: SECRET },
    request: (size) => {
      const body = formBody(size);
      const params = [...new URLSearchParams(body.toString())].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      const data = params.reduce((text, [key, value]) => text + key + value, URL_BASE);
      const request = base(body, [["X-Twilio-Signature", createHmac("sha1", SECRET).update(data).digest("base64")]]);
      request.headers[0] = ["Content-Type", "application/x-www-form-urlencoded"];
      return request;
    },
  },
  {
    name: "standard-webhooks",
    rule: { scheme: "standard-webhooks", secret: SW_SECRET },
    request: (size) => {
      const body = jsonBody(size);
      const headers = signStandardWebhook({ id: "msg_bench", timestampSeconds: NOW, body, secret: SW_SECRET });
      return base(body, Object.entries(headers));
    },
  },
  {
    name: "hmac-sha256 (generic, hex)",
    rule: { scheme: "hmac-sha256", secret: SECRET, header: "X-Signature", prefix: "sha256=" },
    request: (size) => {
      const body = jsonBody(size);
      return base(body, [["X-Signature", `sha256=${hmacHex(SECRET, body)}`]]);
    },
  },
];

let sink = 0;

/** Median nanoseconds per call over ROUNDS rounds of about ROUND_MS each, after a warm-up. */
function nsPerCall(work: () => unknown): number {
  let iterations = 1;
  for (;;) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) work();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (ms >= ROUND_MS / 4) {
      iterations = Math.max(1, Math.round((iterations * ROUND_MS) / ms));
      break;
    }
    iterations *= 2;
  }
  const samples: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < iterations; i += 1) sink += work() === "valid" ? 1 : 0;
    samples.push(Number(process.hrtime.bigint() - started) / iterations);
  }
  return samples.sort((a, b) => a - b)[Math.floor(ROUNDS / 2)]!;
}

const SIZES = [1024, 64 * 1024];
const format = (ns: number) => (ns >= 10_000 ? `${(ns / 1000).toFixed(1)} µs` : `${Math.round(ns).toLocaleString("en")} ns`);

/** Every cell once: baseline ns per size, then per scheme its ns per size. */
function measureAll(): { baselines: number[]; schemes: Array<{ name: string; ns: number[] }> } {
  const baselines = SIZES.map((size) => {
    const body = jsonBody(size);
    return nsPerCall(() => createHmac("sha256", SECRET).update(body).digest());
  });
  const schemes = cases.map(({ name, rule, request }) => {
    const verify = createVerifier(rule);
    const ns = SIZES.map((size) => {
      const signed = request(size);
      if (signed.body.length !== size) throw new Error(`${name}: body of ${signed.body.length} bytes, not ${size}`);
      if (verify(signed).status !== "valid") throw new Error(`${name}: the bench request does not verify`);
      return nsPerCall(() => verify(signed));
    });
    return { name, ns };
  });
  return { baselines, schemes };
}

function main() {
  const started = Date.now();
  measureAll(); // a warm-up pass: whichever cell ran first would otherwise pay for the JIT
  const { baselines, schemes } = measureAll();
  const rows = schemes.map(({ name, ns }) => `| ${name} | ${ns.map((cell, i) => `${format(cell)} | ${(cell / baselines[i]!).toFixed(2)}×`).join(" | ")} |`);
  process.stdout.write(`verification-cost  median of ${ROUNDS} rounds of ~${ROUND_MS} ms per cell, node ${process.version}\n\n`);
  process.stdout.write("| scheme | 1 KiB | × bare HMAC | 64 KiB | × bare HMAC |\n|---|---:|---:|---:|---:|\n");
  process.stdout.write(`| bare HMAC-SHA256 (baseline) | ${baselines.map((ns) => `${format(ns)} | 1.00×`).join(" | ")} |\n`);
  process.stdout.write(`${rows.join("\n")}\n\n(${((Date.now() - started) / 1000).toFixed(1)} s${sink < 0 ? "" : ""})\n`);
}

main();
