import { describe, expect } from "vitest";
import { silentLogger } from "@rehook/core";
import { createEndpoint, logIn } from "@rehook/services";
import { PASSWORD } from "@rehook/vitest-config/service-fixtures";
import { startSink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createOriginPolicy } from "../src/origins.js";
import { createReplayRoute, matchReplayRoute } from "../src/replay-route.js";
import { BASE_URL, capture, listen, test } from "./api-server.js";
import { defaultBodies } from "./default-bodies.js";

// Edit-and-replay on the dashboard's session route (cookie and Origin, over real HTTP): the
// route takes the API's overrides. What an edit sends, what is refused and how signing covers
// it are the use case's own: packages/services/test/replays.test.ts. Moved from
// apps/web/test/replay-edit.test.ts, which started a whole server for it.

const original = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x00, 0xff]); // JSON-ish, then NUL and invalid UTF-8

describe("edit-and-replay on the session route (POST /api/events/{id}/replay)", () => {
  test("takes the same overrides as the API, and refuses a bad one with 400", async ({ services, database, user: owner }) => {
    const sink = await startSink((_req, res) => res.end("ok"));
    const route = createReplayRoute({ services, origins: createOriginPolicy({ origins: [BASE_URL] }), logger: silentLogger, bodies: defaultBodies() });
    const server = await listen(async (req, res) => {
      const eventId = matchReplayRoute(new URL(req.url ?? "/", "http://localhost").pathname);
      if (eventId === undefined) res.writeHead(404).end();
      else await route(req, res, eventId);
    });
    try {
      const cookie = (await logIn(services, { email: owner.email, password: PASSWORD, clientAddress: null })).cookie.serialized.split(";")[0]!;
      const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "edits", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
      const eventId = await capture(services, endpoint.slug, original, { headers: [["Content-Type", "application/json"]] });
      await waitFor(async () => (await database.query<{ status: string }>("select status from events where id = $1", [eventId]))[0]?.status === "delivered", `event ${eventId} delivered`);
      const replay = (payload: unknown) =>
        fetch(`${server.url}/api/events/${eventId}/replay`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: BASE_URL, cookie },
          body: JSON.stringify(payload),
        });

      const text = '{"signed":"edit"}';
      const response = await replay({ environment: "original", overrides: { headers: [["Content-Type", "application/json"]], body: text } });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ status: "delivered", modified: true });
      expect(sink.received.at(-1)!.body.toString()).toBe(text);

      // An edited path and query replace the captured ones on the destination, as forwarding appends them.
      const moved = await replay({ environment: "original", overrides: { path: "/orders/7", query: "try=2" } });
      expect(moved.status).toBe(200);
      expect(await moved.json()).toMatchObject({ modified: true, destination_url: `http://127.0.0.1:${sink.port}/in/orders/7?try=2` });
      expect(sink.received.at(-1)!.url).toBe("/in/orders/7?try=2");
      const split = await replay({ environment: "original", overrides: { query: "a=1\r\nHost: evil" } });
      expect(split.status).toBe(400);

      const bad = await replay({ environment: "original", overrides: { headers: [["X-A", "a\rb"]] } });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("validation_failed");
    } finally {
      await server.close();
      await sink.close();
    }
  });
});
