import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./test-server.js";
import { waitFor } from "@rehook/vitest-config/wait-for";

// Stock node:http servers (default 5 s keep-alive) in a process of their own, so their idle
// timers run whatever Rehook's threads are doing. Each listens on its own port, so each is an
// origin of its own with a connection pool of its own. One line on stdout per request answered.
const DESTINATION_SCRIPT = `
const http = require("node:http");
const count = Number(process.argv[1]);
const ports = [];
for (let index = 0; index < count; index += 1) {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      process.stdout.write("request " + index + " " + req.url + "\\n");
      res.end("ok");
    });
  });
  server.listen(0, "127.0.0.1", () => {
    ports[index] = server.address().port;
    if (ports.filter(Boolean).length === count) process.stdout.write("ports " + ports.join(",") + "\\n");
  });
}
`;

interface Destinations {
  ports: number[];
  /** The paths each server was sent, by server. */
  requests: string[][];
  stop(): Promise<void>;
}

async function startDestinations(count: number): Promise<Destinations> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ["-e", DESTINATION_SCRIPT, String(count)]);
  const requests: string[][] = Array.from({ length: count }, () => []);
  const ports = await new Promise<number[]>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`destinations exited (${code}) before listening`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const [word, first, second] = line.split(" ");
      if (word === "ports") resolve(first!.split(",").map(Number));
      if (word === "request") requests[Number(first)]!.push(second!);
    });
  });
  return {
    ports,
    requests,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}

// Gaps straddling the destinations' 5 s keep-alive (and the agent's 4 s): a pooled socket
// is sometimes still open, sometimes closed by the server just before it would be reused.
// The idle time is what is tested, and it cannot be shortened; but each destination's pool
// idles on its own, so the sequences run side by side: each of the six destinations gets
// three events, the two gaps between them summing to 9.5 s, and every gap is taken twice,
// as in the one sequence of twelve events (50 s) this replaces.
const GAPS_MS = [3_500, 4_000, 4_500, 5_000, 5_500, 6_000];
const SEQUENCES = GAPS_MS.map((gap, index) => [gap, GAPS_MS[GAPS_MS.length - 1 - index]!]);
const EVENTS_PER_DESTINATION = 3;
const EVENTS = SEQUENCES.length * EVENTS_PER_DESTINATION;

let t: TestServer;
let destinations: Destinations;

beforeAll(async () => {
  destinations = await startDestinations(SEQUENCES.length);
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
});
afterAll(async () => {
  await t?.close();
  await destinations?.stop();
});

/** Sends one destination's events through its endpoint, waiting its gaps between them; their ids. */
async function sendWithGaps(slug: string, gaps: number[]): Promise<string[]> {
  const eventIds: string[] = [];
  for (let i = 0; i < EVENTS_PER_DESTINATION; i += 1) {
    // The wait between sends is what this test is about: idle time on pooled sockets.
    if (i > 0) await new Promise((resolve) => setTimeout(resolve, gaps[i - 1]));
    const response = await fetch(`${t.rehook.url}/api/webhook/${slug}/${i}`, { method: "POST", body: JSON.stringify({ i }) });
    expect(response.status).toBe(200);
    eventIds.push(((await response.json()) as { eventId: string }).eventId);
  }
  return eventIds;
}

describe("forwarding over pooled keep-alive connections", () => {
  it("delivers every event to a server whose idle connections time out between sends", { timeout: 100_000 }, async () => {
    const endpoints = await Promise.all(destinations.ports.map((port, index) => t.createEndpoint(`keep-alive-${index}`, `http://127.0.0.1:${port}/in`)));
    const eventIds = (await Promise.all(endpoints.map((endpoint, index) => sendWithGaps(endpoint.slug, SEQUENCES[index]!)))).flat();

    let rows: Array<{ status: string; error: string | null }> = [];
    await waitFor(async () => {
      rows = await t.db.query("select status, error from events where id = any($1::uuid[])", [eventIds]);
      return rows.length === EVENTS && rows.every((row) => row.status !== "pending");
    }, "every event to settle");
    expect(rows.filter((row) => row.status !== "delivered")).toEqual([]);
    expect(destinations.requests.flat()).toHaveLength(EVENTS);
    for (const requests of destinations.requests) {
      expect([...requests].sort()).toEqual(Array.from({ length: EVENTS_PER_DESTINATION }, (_, i) => `/in/${i}`).sort());
    }
  });
});
