import { randomBytes } from "node:crypto";
import { expect } from "vitest";
import { actorFor, createEndpoint, createUser, logIn, type Services } from "@rehook/services";
import { createEventExportRoute, EVENT_EXPORT_PATH } from "../src/event-export-route.js";
import { capture, listen, PASSWORD, test as base } from "./api-server.js";

// GET /api/events/export, the dashboard's Export link: the API's export, by session cookie.

async function cookieOf(services: Services): Promise<{ id: string; teamId: string; cookie: string }> {
  const email = `exporter-${randomBytes(6).toString("hex")}@example.com`;
  const user = await createUser(services, { email, password: PASSWORD });
  const { cookie } = await logIn(services, { email, password: PASSWORD, clientAddress: null });
  const { actor } = await actorFor(services, { userId: user.id });
  return { id: user.id, teamId: actor.teamId, cookie: cookie.serialized.split(";")[0]! };
}

const test = base.extend<{ exportUrl: string }>({
  exportUrl: [
    async ({ services }, use) => {
      const route = createEventExportRoute({ services });
      const server = await listen(async (req, res) => {
        if (new URL(req.url ?? "/", "http://localhost").pathname === EVENT_EXPORT_PATH) await route(req, res);
        else res.writeHead(404).end();
      });
      try {
        await use(`${server.url}${EVENT_EXPORT_PATH}`);
      } finally {
        await server.close();
      }
    },
    { scope: "file" },
  ],
});

test("needs the session, checks the filters, and answers the signed-in user's events as an attachment", async ({ services, exportUrl }) => {
  const owner = await cookieOf(services);
  const anonymous = await fetch(exportUrl);
  expect(anonymous.status).toBe(401);
  expect(((await anonymous.json()) as { error: { message: string } }).error.message).toBe("Sign in to the dashboard first: this route uses its session cookie.");
  const bad = await fetch(`${exportUrl}?format=xml`, { headers: { cookie: owner.cookie } });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("validation_failed");

  const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "session export" });
  const body = Buffer.from("plain text");
  await capture(services, endpoint.slug, body, { contentType: "text/plain" });
  const response = await fetch(`${exportUrl}?format=ndjson&endpoint_id=${endpoint.id}&status=captured`, { headers: { cookie: owner.cookie } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
  expect(response.headers.get("content-disposition")).toBe('attachment; filename="rehook-events.ndjson"');
  // The dashboard's link is not the versioned API.
  expect(response.headers.get("rehook-api-version")).toBeNull();
  const lines = (await response.text()).trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(Buffer.from((JSON.parse(lines[0]!) as { body_base64: string }).body_base64, "base64")).toEqual(body);
});

test("exports no one else's events, and answers a wrong method with 405 and Allow", async ({ services, exportUrl }) => {
  const owner = await cookieOf(services);
  const stranger = await cookieOf(services);
  const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "private export" });
  await capture(services, endpoint.slug, "{}");
  const theirs = await fetch(`${exportUrl}?endpoint_id=${endpoint.id}`, { headers: { cookie: stranger.cookie } });
  expect(theirs.status).toBe(200);
  expect(await theirs.text()).toBe("");
  const mine = await fetch(`${exportUrl}?format=har&endpoint_id=${endpoint.id}`, { headers: { cookie: owner.cookie } });
  expect(mine.headers.get("content-disposition")).toBe('attachment; filename="rehook-events.har"');
  expect(((await mine.json()) as { log: { entries: unknown[] } }).log.entries).toHaveLength(1);
  const posted = await fetch(exportUrl, { method: "POST", headers: { cookie: owner.cookie } });
  expect(posted.status).toBe(405);
  expect(posted.headers.get("allow")).toBe("GET");
});
