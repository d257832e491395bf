import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { exited, runCli, startRehook } from "./run-cli.js";

let db: TestDatabase;
let provider: Sink;
let answering = false;
const held: Array<() => void> = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  provider = await startSink((_req, res) => {
    if (answering) res.end("ok");
    else held.push(() => res.end("ok"));
  });
});
afterAll(async () => {
  for (const child of children) {
    child.kill("SIGKILL");
    await exited(child);
  }
  held.splice(0).forEach((answer) => answer());
  await provider.close();
  await db.drop();
});

describe("chat notifications across a crash", () => {
  it("posts a notification that was due when the process was killed, after a restart", async () => {
    const env = { DATABASE_URL: db.url, ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000" };
    expect((await runCli(["user", "create", "--email", "crash@example.com", "--password", "long enough"], env)).code).toBe(0);
    const endpoint = JSON.parse((await runCli(["endpoint", "create", "--email", "crash@example.com", "--name", "inbox"], env)).stdout) as { slug: string };
    await db.query(
      // The user's personal team, where endpoint create put the endpoint.
      "insert into notification_settings (team_id, enabled, webhook_url, triggers) select t.id, true, $1, '{captured}' from teams t join users u on u.id = t.personal_of_id where u.email = 'crash@example.com'",
      [`http://127.0.0.1:${provider.port}/services/T/B/X`],
    );

    const first = await startRehook(env);
    children.push(first.child);
    const captured = await fetch(`${first.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: '{"type":"crash.test"}' });
    const { eventId } = (await captured.json()) as { eventId: string };
    // The post is on the wire and unanswered: kill the process now.
    await waitFor(() => provider.received.length === 1, "the first post attempt");
    first.child.kill("SIGKILL");
    await exited(first.child);
    expect(await db.query("select 1 from notification_outbox")).toHaveLength(1);

    answering = true;
    const second = await startRehook(env);
    children.push(second.child);
    await waitFor(async () => (await db.query("select 1 from notification_outbox")).length === 0, "the restarted instance to post it", 40_000);
    const posted = provider.received.slice(1).map((r) => JSON.parse(r.body.toString()) as { text: string; blocks: unknown[] });
    expect(posted).toHaveLength(1);
    expect(JSON.stringify(posted[0]!.blocks)).toContain(eventId);
    expect(posted[0]!.text).toContain("crash.test was captured");
  });
});
