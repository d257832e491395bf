import { spawn, type ChildProcess } from "node:child_process";
import { request as httpRequest } from "node:http";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { childEnv, CLI, exited, runCli, startRehook } from "./run-cli.js";

let db: TestDatabase;
let env: Record<string, string>;
let apiKey: string;
let slug: string;
let local: Sink;
let failNext = 0;
const children: ChildProcess[] = [];

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** `rehook listen` as a developer runs it; its output is collected as it comes. */
function startListen(args: string[]): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [CLI, "listen", ...args], {
    env: childEnv({ PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", NO_COLOR: "1" }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  children.push(child);
  return { child, output: () => output };
}

/** Captures a request with repeated headers (fetch would merge them into one). */
function capture(url: string, body: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/webhook/${slug}/deep/path?q=1`, {
      method: "POST",
      headers: ["Host", new URL(url).host, "Content-Type", "application/octet-stream", "Stripe-Signature", "t=1,v1=sig", "X-Dup", "1", "X-Dup", "2", "Content-Length", String(body.length)],
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => (text += chunk.toString()));
      res.on("end", () => (res.statusCode === 200 ? resolve((JSON.parse(text) as { eventId: string }).eventId) : reject(new Error(`capture answered ${res.statusCode}: ${text}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url };
  expect((await runCli(["user", "create", "--email", "dev@example.com", "--password", "long enough"], env)).code).toBe(0);
  slug = JSON.parse((await runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "stripe dev"], env)).stdout).slug;
  apiKey = (await runCli(["apikey", "create", "--email", "dev@example.com"], env)).stdout.trim().split("\n").at(-1)!;
  local = await startSink((_req, res) => {
    if (failNext > 0) {
      failNext -= 1;
      res.statusCode = 500;
      res.end("local bug");
    } else res.end("ok");
  });
});
afterAll(async () => {
  for (const child of children) {
    child.kill("SIGKILL");
    await exited(child);
  }
  await local.close();
  await db.drop();
});

const bodyOf = (i: number) => Buffer.concat([Buffer.from(`event ${i} `), Buffer.from([0, 255, 254, i])]);

describe("rehook listen", () => {
  it("streams events byte for byte to the local server, survives a server restart without losing or repeating any, and records each attempt", async () => {
    const port = await freePort();
    const server = await startRehook({ ...env, PORT: String(port) });
    children.push(server.child);
    const other = await startRehook(env); // a second instance captures while the first is down
    children.push(other.child);
    const listener = startListen(["--endpoint", slug, "--forward", `http://127.0.0.1:${local.port}/hooks`, "--server", server.url, "--api-key", apiKey]);
    await waitFor(() => listener.output().includes("● connected"), "listen to connect", 30_000);

    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1) ids.push(await capture(server.url, bodyOf(i)));
    await waitFor(() => local.received.length === 3, "the first three events locally");

    server.child.kill("SIGKILL");
    await exited(server.child);
    await waitFor(() => listener.output().includes("○ reconnecting"), "listen to show it is reconnecting");
    for (let i = 3; i < 6; i += 1) ids.push(await capture(other.url, bodyOf(i)));

    const restarted = await startRehook({ ...env, PORT: String(port) });
    children.push(restarted.child);
    await waitFor(() => local.received.length >= 6, "the events captured while away", 40_000);
    await waitFor(() => listener.output().includes("● reconnected"), "the reconnected line");
    ids.push(await capture(restarted.url, bodyOf(6)));
    await waitFor(() => local.received.length >= 7, "a live event after the reconnect");

    // Nothing lost, nothing twice, in order, byte for byte, headers in order.
    expect(local.received).toHaveLength(7);
    local.received.forEach((request, i) => {
      expect(request.body.equals(bodyOf(i))).toBe(true);
      expect(request.url).toBe("/hooks/deep/path?q=1");
      const pairs: string[][] = [];
      for (let h = 0; h < request.rawHeaders.length; h += 2) pairs.push([request.rawHeaders[h]!, request.rawHeaders[h + 1]!]);
      expect(pairs.filter(([name]) => /^(content-type|stripe-signature|x-dup)$/i.test(name!))).toEqual([
        ["Content-Type", "application/octet-stream"],
        ["Stripe-Signature", "t=1,v1=sig"],
        ["X-Dup", "1"],
        ["X-Dup", "2"],
      ]);
    });
    await waitFor(async () => (await db.query("select 1 from replay_attempts where environment = 'local'")).length === 7, "seven recorded local attempts", 40_000);
    const recorded = await db.query<{ event_id: string; status: string; response_status: number; local_via: string; destination_url: string }>(
      "select event_id, status, response_status, local_via, destination_url from replay_attempts where environment = 'local' order by event_id",
    );
    expect(recorded.map((r) => r.event_id)).toEqual([...ids].sort());
    expect(recorded.every((r) => r.status === "delivered" && r.response_status === 200)).toBe(true);
    // Recorded as local via listen, under the URL listen requested (not a destination's, nor localhost:3000).
    for (const r of recorded) expect(r).toMatchObject({ local_via: "listen", destination_url: `http://127.0.0.1:${local.port}/hooks/deep/path?q=1` });
    // Each line names the event (its id, for rehook events get and replay) and where it came in.
    expect(listener.output()).toMatch(new RegExp(`  ${ids[0]}  POST\\s+/deep/path\\?q=1\\s+stripe/unknown\\s+→ 200`));

    // A failing local server is reported and recorded, and the stream goes on.
    failNext = 1;
    const failing = await capture(restarted.url, bodyOf(7));
    await waitFor(() => listener.output().includes("→ 500"), "the 500 line");
    await waitFor(async () => (await db.query("select 1 from replay_attempts where event_id = $1 and status = 'failed' and response_status = 500", [failing])).length === 1, "the failed attempt recorded");
    await capture(restarted.url, bodyOf(8));
    await waitFor(() => local.received.length === 9, "the next event after the failure");

    listener.child.kill("SIGINT");
    expect(await exited(listener.child)).toBe(0);
    expect(listener.output()).toContain("9 event(s): 8 answered 2xx, 1 failed");
  }, 90_000); // two server starts: slow on a loaded machine

  it("retries a failing local server with --retry", async () => {
    const server = await startRehook(env);
    children.push(server.child);
    const listener = startListen(["--endpoint", slug, "--forward", `http://127.0.0.1:${local.port}/hooks`, "--server", server.url, "--api-key", apiKey, "--retry", "2"]);
    await waitFor(() => listener.output().includes("● connected"), "listen to connect", 30_000);
    const before = local.received.length;
    failNext = 2;
    await capture(server.url, bodyOf(9));
    await waitFor(() => listener.output().includes("→ 200"), "the event to succeed on its third attempt");
    expect(local.received.length - before).toBe(3);
    listener.child.kill("SIGINT");
    await exited(listener.child);
  });

  it("carries a body of almost MAX_PAYLOAD_BYTES (10 MiB) intact", async () => {
    const server = await startRehook(env);
    children.push(server.child);
    const listener = startListen(["--endpoint", slug, "--forward", `http://127.0.0.1:${local.port}/big`, "--server", server.url, "--api-key", apiKey]);
    await waitFor(() => listener.output().includes("● connected"), "listen to connect", 30_000);
    const big = Buffer.alloc(10 * 1024 * 1024 - 1024);
    for (let i = 0; i < big.length; i += 1) big[i] = (i * 31) & 0xff;
    await capture(server.url, big);
    await waitFor(() => local.received.some((r) => r.url.startsWith("/big")), "the big event locally", 30_000);
    expect(local.received.find((r) => r.url.startsWith("/big"))!.body.equals(big)).toBe(true);
    listener.child.kill("SIGINT");
    await exited(listener.child);
  });

  it("names a server it cannot reach and keeps trying with backoff until stopped", async () => {
    // A server that hangs up on every connection: no answer, ever.
    const hangUp = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, "127.0.0.1", resolve));
    const server = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`;
    try {
      const listener = startListen(["--endpoint", slug, "--forward", "localhost:3000/hooks", "--server", server, "--api-key", apiKey]);
      children.push(listener.child);
      await waitFor(() => listener.output().includes("trying again in 1.0 s"), "the second, longer wait");
      expect(listener.output()).toMatch(new RegExp(`○ cannot reach ${server.replaceAll(".", "\\.")} \\(.+\\); trying again in 0\\.5 s`));
      listener.child.kill("SIGINT");
      expect(await exited(listener.child)).toBe(0);
      expect(listener.output()).toContain("0 event(s)");
    } finally {
      await new Promise((resolve) => hangUp.close(resolve));
    }
  });

  it("--json writes one JSON object a line, ending with the summary", async () => {
    const hangUp = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => hangUp.listen(0, "127.0.0.1", resolve));
    const server = `http://127.0.0.1:${(hangUp.address() as AddressInfo).port}`;
    try {
      const listener = startListen(["--endpoint", slug, "--forward", "3000", "--server", server, "--api-key", apiKey, "--json"]);
      await waitFor(() => listener.output().includes('"retry_in_ms":1000'), "the second attempt's line");
      listener.child.kill("SIGINT");
      expect(await exited(listener.child)).toBe(0);
      const lines = listener.output().trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines[0]).toMatchObject({ type: "unreachable", server, retry_in_ms: 500 });
      expect(typeof lines[0]!.reason).toBe("string");
      expect(lines.at(-1)).toMatchObject({ type: "summary", received: 0, ok: 0, failed: 0 });
    } finally {
      await new Promise((resolve) => hangUp.close(resolve));
    }
  });

  it("stops with a one-line error and exit code 1 for a wrong key, or a wrong slug with a hint that names a command that exists", async () => {
    const server = await startRehook(env);
    children.push(server.child);
    // The last character changed to one it cannot already be: a key that differs, so it is refused.
    const wrongKey = `${apiKey.slice(0, -1)}${apiKey.endsWith("x") ? "y" : "x"}`;
    const result = await runCli(["listen", "--endpoint", slug, "--forward", "http://127.0.0.1:9/x", "--server", server.url, "--api-key", wrongKey], {});
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^rehook: The API key was refused \(401\)/);

    // A wrong slug: the hint names a command that exists, and it lists the right slug.
    const wrongSlug = await runCli(["listen", "--endpoint", `${slug}-nope`, "--forward", "http://127.0.0.1:9/x", "--server", server.url, "--api-key", apiKey], {});
    expect(wrongSlug.code).toBe(1);
    expect(wrongSlug.stderr.trim().split("\n")).toHaveLength(1);
    const hint = /Check the slug with (rehook endpoint list) --email <your email>\./.exec(wrongSlug.stderr)!;
    const listed = await runCli([...hint[1]!.split(" ").slice(1), "--email", "dev@example.com"], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(` ${slug} `);
  }, 90_000);
});
