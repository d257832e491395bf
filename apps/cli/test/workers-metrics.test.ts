import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parentPid } from "@rehook/vitest-config/processes";
import { stopPostmaster } from "@rehook/vitest-config/postmaster";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { runCli, startRehook } from "./run-cli.js";

// GET /metrics under --workers 2: every scrape reaches some worker, and each must show the whole instance.

const TOKEN = "metrics-token-for-the-workers-test";
/** How long the primary waits for the workers (METRICS_WORKERS_WAIT_MS): generous, so a saturated machine's slow worker still answers in time. */
const WAIT_MS = 10_000;
let dataDir: string;
let server: { child: import("node:child_process").ChildProcess; url: string; log: () => string } | undefined;
let slug: string;
let stored = 0;

const listeningWorkers = () => [...server!.log().matchAll(/worker listening worker=(\d+)/g)].map((match) => Number(match[1]));
/** The workers whose access lines show a request to `path` answered `status`. */
const workersServing = (pattern: string) => new Set([...server!.log().matchAll(new RegExp(`request method="[A-Z]+" path="${pattern}" status=\\d+ .*worker=(\\d+)`, "g"))].map((match) => Number(match[1])));

/** One request on a connection of its own: the primary hands each new connection to the next worker. */
function send(method: string, url: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, agent: false, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function capture(): Promise<void> {
  const { status } = await send("POST", `${server!.url}/api/webhook/${slug}`, { "content-type": "application/json" }, "{}");
  expect(status).toBe(200);
  stored += 1;
}

const scrape = () => send("GET", `${server!.url}/metrics`, { authorization: `Bearer ${TOKEN}` });

/** A sample's value in the text format: `name{labels} value`. */
function sample(text: string, series: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  if (!line) throw new Error(`no ${series} in the scrape`);
  return Number(line.slice(series.length + 1));
}
const storedCount = (text: string) => sample(text, 'rehook_events_captured_total{outcome="stored"}');
const durationCount = (text: string) => sample(text, 'rehook_capture_duration_seconds_count{outcome="stored"}');

/**
 * What `promtool check metrics` finds wrong with a scrape: a text it cannot parse exits 1; lint
 * findings exit 3, one a line. prom-client names three of its default gauges `*_total`
 * (nodejs_active_handles_total, …): those findings are prom-client's names, not ours.
 */
function promtoolProblems(text: string): string[] {
  const result = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  const lines = `${result.stdout}${result.stderr}`.split("\n").filter((line) => line !== "");
  if (result.status !== 0 && result.status !== 3) return [`exit ${result.status}`, ...lines];
  return lines.filter((line) => !/^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$/.test(line));
}

/** Fails the file up front, in one line, where promtool is not installed (not a skip: the check is part of the test). */
function requirePromtool(): void {
  const result = spawnSync("promtool", ["--version"], { encoding: "utf8" });
  if (result.error || result.status !== 0) throw new Error("promtool is missing: install it (Debian: apt-get install --no-install-recommends prometheus; .ci/run does) to check the scrapes");
}

beforeAll(async () => {
  requirePromtool();
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-workers-metrics-"));
  server = await startRehook({ REHOOK_DATA_DIR: dataDir, LOG_LEVEL: "debug", METRICS_TOKEN: TOKEN, SHUTDOWN_DRAIN_MS: "0", METRICS_WORKERS_WAIT_MS: String(WAIT_MS) }, { args: ["--workers", "2"] });
  await waitFor(() => listeningWorkers().length === 2, "both workers to listen");
  expect((await runCli(["user", "create", "--email", "metrics@example.com", "--password", "long enough"], { REHOOK_DATA_DIR: dataDir })).code).toBe(0);
  const endpoint = await runCli(["endpoint", "create", "--email", "metrics@example.com", "--name", "m"], { REHOOK_DATA_DIR: dataDir });
  slug = (JSON.parse(endpoint.stdout) as { slug: string }).slug;
}, 90_000);

afterAll(async () => {
  const primary = server?.child.pid;
  for (const pid of server ? listeningWorkers() : []) if (primary !== undefined && parentPid(pid) === primary) process.kill(pid, "SIGKILL");
  server?.child.kill("SIGKILL");
  await stopPostmaster(dataDir);
  await rm(dataDir, { recursive: true, force: true });
});

describe("GET /metrics with --workers 2", () => {
  it("every scrape shows the whole instance: counters equal the captures made and never go down, whichever worker answers; promtool accepts the text", async () => {
    const seen: number[] = [];
    const workers = new Set(listeningWorkers());
    const bothServed = () => [workersServing("/api/webhook/[^\"]+"), workersServing("/metrics")].every((served) => [...workers].every((pid) => served.has(pid)));
    // One capture, then two, then one…: captures and scrapes take turns on both workers.
    for (let round = 0; round < 6 || !bothServed(); round++) {
      expect(round).toBeLessThan(30);
      for (let count = 0; count <= round % 2; count++) await capture();
      const { status, text } = await scrape();
      expect(status).toBe(200);
      seen.push(storedCount(text));
      expect(storedCount(text)).toBe(stored);
      expect(durationCount(text)).toBe(stored);
      expect(sample(text, 'rehook_cluster_workers{state="answered"}')).toBe(2);
      if (round === 0) expect(promtoolProblems(text)).toEqual([]);
    }
    // A burst of concurrent scrapes (they share the primary's collections): every one answers, with the same totals.
    const burst = await Promise.all(Array.from({ length: 20 }, () => scrape()));
    expect(burst.map((answer) => answer.status)).toEqual(burst.map(() => 200));
    expect(new Set(burst.map((answer) => storedCount(answer.text)))).toEqual(new Set([stored]));
    // Non-decreasing from scrape to scrape: Prometheus sees no reset.
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    // METRICS_TOKEN still holds.
    expect((await send("GET", `${server!.url}/metrics`, {})).status).toBe(401);
  }, 60_000);

  it("a stopped worker does not hang the scrape: the answer comes after METRICS_WORKERS_WAIT_MS with its last counters", async () => {
    const [slow, live] = listeningWorkers() as [number, number];
    const before = storedCount((await scrape()).text);
    process.kill(slow, "SIGSTOP");
    try {
      // A connection handed to the stopped worker waits for it; the next goes to the live one.
      const started = Date.now();
      const first = await Promise.any([scrape(), scrape()]);
      expect(Date.now() - started).toBeLessThan(WAIT_MS + 5_000);
      expect(first.status).toBe(200);
      expect(sample(first.text, 'rehook_cluster_workers{state="late"}')).toBe(1);
      expect(storedCount(first.text)).toBe(before);
      expect(promtoolProblems(first.text)).toEqual([]);
      expect(live).not.toBe(slow);
    } finally {
      process.kill(slow, "SIGCONT");
    }
  }, WAIT_MS + 30_000);

  it("a killed worker's counts stay in the totals (no reset), and its replacement counts on top", async () => {
    const [victim] = listeningWorkers() as [number, number];
    await scrape(); // the primary's last report of each worker is fresh
    const before = storedCount((await scrape()).text);
    process.kill(victim, "SIGKILL");
    await waitFor(() => listeningWorkers().length === 3, "a replacement to listen");
    const after = await scrape();
    expect(storedCount(after.text)).toBe(before);
    await capture();
    await capture();
    expect(storedCount((await scrape()).text)).toBe(before + 2);
  }, 60_000);
});
