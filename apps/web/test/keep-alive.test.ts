import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "./test-server.js";
import { waitFor } from "@rehook/vitest-config/wait-for";

// A stock node:http server (default 5 s keep-alive) in a process of its own, so its idle
// timers run whatever Rehook's threads are doing. One line on stdout per request it answers.
const DESTINATION_SCRIPT = `
const http = require("node:http");
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    process.stdout.write("request " + req.url + "\\n");
    res.end("ok");
  });
});
server.listen(0, "127.0.0.1", () => process.stdout.write("port " + server.address().port + "\\n"));
`;

interface Destination {
  port: number;
  requests: string[];
  stop(): Promise<void>;
}

async function startDestination(): Promise<Destination> {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, ["-e", DESTINATION_SCRIPT]);
  const requests: string[] = [];
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`destination exited (${code}) before listening`)));
    createInterface({ input: child.stdout }).on("line", (line) => {
      const [word, value] = line.split(" ");
      if (word === "port") resolve(Number(value));
      if (word === "request") requests.push(value!);
    });
  });
  return {
    port,
    requests,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill();
      }),
  };
}

// Gaps straddling the destination's 5 s keep-alive (and the agent's 4 s): a pooled socket
// is sometimes still open, sometimes closed by the server just before it would be reused.
const GAPS_MS = [3_500, 4_000, 4_500, 5_000, 5_500, 6_000];
const EVENTS = 12;

let t: TestServer;
let destination: Destination;

beforeAll(async () => {
  destination = await startDestination();
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
});
afterAll(async () => {
  await t?.close();
  await destination?.stop();
});

describe("forwarding over pooled keep-alive connections", () => {
  it("delivers every event to a server whose idle connections time out between sends", { timeout: 100_000 }, async () => {
    const endpoint = await t.createEndpoint("keep-alive", `http://127.0.0.1:${destination.port}/in`);
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i += 1) {
      // The wait between sends is what this test is about: idle time on pooled sockets.
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, GAPS_MS[(i - 1) % GAPS_MS.length]));
      const response = await fetch(`${t.rehook.url}/api/webhook/${endpoint.slug}/${i}`, { method: "POST", body: JSON.stringify({ i }) });
      expect(response.status).toBe(200);
      eventIds.push(((await response.json()) as { eventId: string }).eventId);
    }

    let rows: Array<{ status: string; error: string | null }> = [];
    await waitFor(async () => {
      rows = await t.db.query("select status, error from events where id = any($1::uuid[])", [eventIds]);
      return rows.length === EVENTS && rows.every((row) => row.status !== "pending");
    }, "every event to settle");
    expect(rows.filter((row) => row.status !== "delivered")).toEqual([]);
    expect(destination.requests).toHaveLength(EVENTS);
    expect([...destination.requests].sort()).toEqual(Array.from({ length: EVENTS }, (_, i) => `/in/${i}`).sort());
  });
});
