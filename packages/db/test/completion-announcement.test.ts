import { afterAll, describe, expect } from "vitest";
import { uuidv7 } from "@rehook/core";
import { test } from "../../../tooling/vitest/src/fixtures.js";
import { insertPersonalTeam } from "../../../tooling/vitest/src/postgres.js";
import { waitFor } from "../../../tooling/vitest/src/wait-for.js";
import { claimDueDeliveries, completeDeliveries, createPool, EventBus, type BusMessage, type Pool } from "../src/index.js";

// Delivery results are announced by the statement that stores them (NOTIFY at commit), as
// captures are: every instance's live feed hears them, and nothing is announced that did not commit.

let pool: Pool;
let bus: EventBus;
const heard: BusMessage[] = [];

describe("completing deliveries", () => {
  afterAll(async () => {
    await bus?.close();
    await pool?.end();
  });

  test("announces each stored status on the bus, with the endpoint and its owning team, and only what it stored", async ({ database }) => {
    pool = createPool({ databaseUrl: database.url, max: 2 });
    bus = await EventBus.connect(database.url);
    bus.subscribe((message) => void heard.push(message));
    const userId = uuidv7();
    const endpointId = uuidv7();
    await database.query("insert into users (id, email, password_hash) values ($1, 'done@example.com', 'x')", [userId]);
    const teamId = await insertPersonalTeam(database, userId);
    const destinationId = uuidv7();
    await database.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'e', 'done-e', 'whsec_x')", [endpointId, teamId]);
    await database.query(
      `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at) values ($1, $2, 0, 'example.com', 'https://example.com/in', now(), now())`,
      [destinationId, endpointId],
    );
    const ids = [uuidv7(), uuidv7(), uuidv7()];
    await database.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
       select t.id, $1, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'pending', 'https://example.com/in' from unnest($2::uuid[]) as t(id)`,
      [endpointId, ids],
    );
    await database.query(`insert into deliveries (event_id, destination_id, endpoint_id, status) select t.id, $1, $2, 'pending' from unnest($3::uuid[]) as t(id)`, [
      destinationId,
      endpointId,
      ids,
    ]);
    const claimed = await claimDueDeliveries(pool, 10, 60_000, 1024 * 1024);
    expect(claimed.map((delivery) => delivery.id).sort()).toEqual([...ids].sort());
    expect(claimed.every((delivery) => delivery.destinationId === destinationId)).toBe(true);
    const outcome = (id: string, status: "delivered" | "failed", attempt = 1) => ({
      id,
      destinationId,
      attempt,
      heldOn: "delivery" as const,
      probe: false,
      otherDeliveries: false,
      status,
      retryInMs: null,
      startedAt: Date.now(),
      latencyMs: 5,
      responseStatus: status === "delivered" ? 200 : 500,
      responseHeaders: [],
      responseBody: null,
      responseTruncated: false,
      error: null,
    });
    // The third result belongs to a claim the event never had (attempt 7): it is not stored, so not announced.
    const completed = await completeDeliveries(pool, [outcome(ids[0]!, "delivered"), outcome(ids[1]!, "failed"), outcome(ids[2]!, "delivered", 7)]);
    expect(completed.map((delivery) => delivery.id).sort()).toEqual([ids[0], ids[1]].sort());

    await waitFor(() => heard.filter((message) => message.type === "event.status").length >= 2, "two status messages");
    const statuses = heard.filter((message) => message.type === "event.status");
    expect(statuses.map((message) => ({ ...message })).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
      [
        { type: "event.status", id: ids[0], endpointId, teamId, status: "delivered" },
        { type: "event.status", id: ids[1], endpointId, teamId, status: "failed" },
      ].sort((a, b) => (a.id! < b.id! ? -1 : 1)),
    );
    expect(statuses.some((message) => message.type === "event.status" && message.id === ids[2])).toBe(false);
  });
});
