import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { runCli } from "./run-cli.js";

/** More than two of the export's pages (500 events each). */
const SEEDED = 1_234;

let db: TestDatabase;
let env: Record<string, string>;
let dir: string;
let endpoint: { id: string; slug: string };

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, BASE_URL: "https://hooks.example.com" };
  dir = await mkdtemp(path.join(tmpdir(), "rehook-export-"));
  expect((await runCli(["user", "create", "--email", "export@example.com", "--password", "s3cret-pass"], env)).code).toBe(0);
  endpoint = JSON.parse((await runCli(["endpoint", "create", "--email", "export@example.com", "--name", "orders"], env)).stdout) as { id: string; slug: string };
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, source, event_type, status)
     select (lpad(to_hex(b.ms), 12, '0') || '7' || substr(md5(b.g::text), 1, 3) || '8' || substr(md5(b.g::text), 4, 15))::uuid,
            $1::uuid, to_timestamp(b.ms / 1000.0), 'POST', '/sub', 'x=1', json_build_array(json_build_array('content-type', 'application/json')),
            b.body, 'application/json', octet_length(b.body), 'unknown', 'unknown', 'captured'
     from (select g, $2::bigint - g * 5 as ms, convert_to(format('{"n":%s}', g), 'UTF8') as body from generate_series(1, $3::int) g) b`,
    [endpoint.id, Date.now() - 60_000, SEEDED],
  );
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await db.drop();
});

describe("rehook events export", () => {
  it("writes every event to a file as NDJSON, newest first, with a final count on stderr", async () => {
    const file = path.join(dir, "events.ndjson");
    const result = await runCli(["events", "export", "--email", "export@example.com", "--output", file], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("");
    expect(result.stderr.split("\r").at(-1)).toBe(`exported ${SEEDED.toLocaleString("en-US")} events\n`);
    const lines = (await readFile(file, "utf8")).split("\n");
    expect(lines.pop()).toBe("");
    expect(lines).toHaveLength(SEEDED);
    const first = JSON.parse(lines[0]!) as { body_base64: string; path: string; query: string };
    expect(JSON.parse(Buffer.from(first.body_base64, "base64").toString("utf8"))).toEqual({ n: 1 });
    expect(JSON.parse(Buffer.from((JSON.parse(lines.at(-1)!) as { body_base64: string }).body_base64, "base64").toString("utf8"))).toEqual({ n: SEEDED });
  }, 60_000);

  it("writes HAR to stdout with the capture URL", async () => {
    const result = await runCli(["events", "export", "--email", "export@example.com", "--format", "har", "--endpoint", endpoint.id], env);
    expect(result.code).toBe(0);
    const har = JSON.parse(result.stdout) as { log: { version: string; entries: Array<{ request: { url: string } }> } };
    expect(har.log.version).toBe("1.2");
    expect(har.log.entries).toHaveLength(SEEDED);
    expect(har.log.entries[0]!.request.url).toBe(`https://hooks.example.com/api/webhook/${endpoint.slug}/sub?x=1`);
  }, 60_000);

  it("refuses an unknown format with one line and a non-zero exit", async () => {
    const result = await runCli(["events", "export", "--email", "export@example.com", "--format", "csv"], env);
    expect(result.code).not.toBe(0);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/--format must be one of ndjson, har/);
  });

  it("reads the contract's filter fields as flags: a value each field refuses is one line naming the flag", async () => {
    const [signature, after, text] = await Promise.all([
      runCli(["events", "export", "--email", "export@example.com", "--signature", "forged"], env),
      runCli(["events", "export", "--email", "export@example.com", "--received-after", "yesterday"], env),
      runCli(["events", "export", "--email", "export@example.com", "--source", "s".repeat(201)], env),
    ]);
    expect(signature.stderr).toMatch(/--signature must be one of valid, invalid, missing/);
    expect(after.stderr).toMatch(/--received-after must be a date and time/);
    // The rest is the contract's own check, as the API and the dashboard answer it.
    expect(text.stderr).toMatch(/Source: too big/);
    for (const result of [signature, after, text]) {
      expect(result.code).not.toBe(0);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
    }
  });
});
