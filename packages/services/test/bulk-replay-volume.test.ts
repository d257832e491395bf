import { createHash } from "node:crypto";
import { describe, expect } from "vitest";
import { createEndpoint, updateEndpoint } from "@rehook/services";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { startSink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { capture, expectRefused, test } from "./support.js";

// A bulk replay of many events (more than one page of the job's reads) through the graph's
// job runner and delivery workers. Moved from apps/web/test/replay.test.ts, which captured
// the events over HTTP; bulk replays across instances stay there.

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x00, 0xff]); // JSON-ish, then NUL and invalid UTF-8
const sentHeaders: Array<[string, string]> = [
  ["Content-Type", "application/json"],
  ["X-Dup", "1"],
  ["Stripe-Signature", "t=1,v1=abc"],
  ["X-Dup", "2"],
];

describe("bulk replay", () => {
  test("replays 500 failed events of an endpoint to its fixed destination and reports a correct summary", { timeout: 180_000 }, async ({ services, database, user, other }) => {
    const failing = await startSink((_req, res) => {
      res.statusCode = 500;
      res.end("down");
    });
    try {
      const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "bulk", destinationUrl: `http://127.0.0.1:${failing.port}/in` });
      for (let batch = 0; batch < 10; batch += 1) await Promise.all(Array.from({ length: 50 }, () => capture(services, endpoint.slug, body, sentHeaders)));
      await waitFor(async () => (await database.query("select 1 from events where endpoint_id = $1 and status = 'failed'", [endpoint.id])).length === 500, "500 failed events", 60_000);

      const fixed = await startSink((_req, res) => res.end("ok"));
      try {
        await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { destinationUrl: `http://127.0.0.1:${fixed.port}/in` } });
        const job = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "original" });
        expect(job).toMatchObject({ total: 500, state: "running" });
        let summary = job;
        await waitFor(async () => {
          summary = await services.bulkReplays.get({ teamId: user.teamId, jobId: job.id });
          return summary.state !== "running";
        }, "the bulk replay to finish", 120_000);
        expect(summary).toMatchObject({ state: "finished", done: 500, delivered: 500, failed: 0 });
        expect(fixed.received).toHaveLength(500);
        expect(new Set(fixed.received.map((r) => sha256(r.body)))).toEqual(new Set([sha256(body)]));
        const statuses = await database.query<{ status: string; n: string }>("select status, count(*) as n from events where endpoint_id = $1 group by status", [endpoint.id]);
        expect(statuses).toEqual([{ status: "failed", n: "500" }]);
        // Replays leave the events' statuses alone, and so their counts.
        expect(await eventCountMismatches(database)).toEqual([]);
        // Another team's job answers as if missing (the dashboard's 404).
        await expectRefused(services.bulkReplays.get({ teamId: other.teamId, jobId: job.id }), "not_found");
      } finally {
        await fixed.close();
      }
    } finally {
      await failing.close();
    }
  });
});
