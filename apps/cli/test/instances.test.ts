import { describe, expect, it } from "vitest";
import { startSink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { useCliInstances } from "./cli-instances.js";
import { exited, runCli, startRehook } from "./run-cli.js";

const cli = useCliInstances("ops@example.com");

async function endpointTo(name: string, port: number): Promise<{ id: string; slug: string }> {
  const result = await runCli(["endpoint", "create", "--email", "ops@example.com", "--name", name, "--destination", `http://127.0.0.1:${port}/in`], cli.env);
  return JSON.parse(result.stdout);
}

const pendingCount = async (endpointId: string) =>
  Number((await cli.db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and status = 'pending'", [endpointId]))[0]!.n);

describe("several rehook processes on one PostgreSQL", () => {
  it("after a kill -9 mid-delivery and a restart, every pending event ends delivered", async () => {
    let holding = true;
    const held: Array<() => void> = [];
    cli.sink = await startSink((_req, res) => {
      if (holding) held.push(() => res.end());
      else res.end("ok");
    });
    const endpoint = await endpointTo("crash", cli.sink.port);
    const first = await startRehook(cli.env);
    cli.children.push(first.child);
    for (let i = 0; i < 20; i += 1) {
      const response = await fetch(`${first.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: JSON.stringify({ i }) });
      expect(response.status).toBe(200);
    }
    await waitFor(async () => cli.sink!.received.length >= 20, "the first instance to be forwarding", 40_000);
    first.child.kill("SIGKILL");
    await exited(first.child);
    expect(await pendingCount(endpoint.id)).toBe(20); // nothing was answered, nothing is done

    holding = false;
    held.splice(0).forEach((answer) => answer());
    const second = await startRehook(cli.env);
    cli.children.push(second.child);
    await waitFor(async () => (await pendingCount(endpoint.id)) === 0, "the restarted instance to finish the work", 40_000);
    const statuses = await cli.db.query<{ status: string; n: string }>("select status, count(*) as n from events where endpoint_id = $1 group by status", [endpoint.id]);
    expect(statuses).toEqual([{ status: "delivered", n: "20" }]);
    // At least once: every event reached the sink again after the crash.
    const delivered = new Set(cli.sink.received.slice(20).map((r) => r.body.toString()));
    expect(delivered.size).toBe(20);
  });

  it("two running instances share the work and forward each event once", async () => {
    cli.sink = await startSink((_req, res) => res.end("ok"));
    const endpoint = await endpointTo("shared", cli.sink.port);
    const a = await startRehook(cli.env);
    const b = await startRehook(cli.env);
    cli.children.push(a.child, b.child);
    await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${i % 2 === 0 ? a.url : b.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: JSON.stringify({ i }) }).then((r) =>
          expect(r.status).toBe(200),
        ),
      ),
    );
    await waitFor(async () => (await pendingCount(endpoint.id)) === 0, "both instances to finish", 40_000);
    const bodies = cli.sink.received.map((r) => r.body.toString());
    expect(bodies).toHaveLength(200);
    expect(new Set(bodies).size).toBe(200);
  });
});
