import { expect } from "vitest";
import type { wireAuditEntry } from "@rehook/core";
import { createEndpoint, updateEndpoint } from "@rehook/services";
import { keyWithRole, test, unexercised } from "./api-server.js";

// GET /api/v1/audit-log: the key's team's entries, newest first, for admin and owner keys;
// filters and the cursor as the dashboard has them; what a key did is recorded as the key's.

type WireEntry = ReturnType<typeof wireAuditEntry>;
type AuditAnswer = { data: WireEntry[]; meta: { limit: number; next_cursor: string | null } };

test("lists the team's entries newest first, with the key's own changes as the key's, and pages by cursor", async ({ api, services, user }) => {
  const admin = await keyWithRole(services, user.actor, "admin");
  const first = await createEndpoint(services, { teamId: user.teamId, by: user.actor, name: "Orders" });
  await updateEndpoint(services, { teamId: user.teamId, by: user.actor, endpoint: { id: first.id }, changes: { name: "Orders EU" } });
  const created = await api.call("POST", "/endpoints", { key: admin, body: { name: "Made by a key" }, headers: { "x-request-id": "req-from-key" } });
  expect(created.status).toBe(201);

  const page = await api.call("GET", "/audit-log?limit=2", { key: admin });
  expect(page.status).toBe(200);
  const answer = page.json as AuditAnswer;
  expect(answer.data.map((entry) => entry.action)).toEqual(["endpoint.create", "endpoint.update"]);
  expect(answer.data[0]).toMatchObject({
    actor: { type: "api_key", id: expect.any(String), name: expect.stringMatching(/^admin key \(pk_live_/) },
    target: { type: "endpoint", name: "Made by a key" },
    request_id: "req-from-key",
    ip: "127.0.0.1",
  });
  expect(answer.data[1]!.changes).toEqual({ name: { before: "Orders", after: "Orders EU" } });
  expect(answer.meta).toEqual({ limit: 2, next_cursor: answer.data[1]!.id });

  const older = (await api.call("GET", `/audit-log?limit=2&cursor=${answer.meta.next_cursor}`, { key: admin })).json as AuditAnswer;
  // The first endpoint's creation, then the key's own (made before it).
  expect(older.data.map((entry) => [entry.action, entry.target.name])).toEqual([
    ["endpoint.create", "Orders"],
    ["api_key.create", expect.stringMatching(/^admin key \(pk_live_/)],
  ]);
  const filtered = (await api.call("GET", `/audit-log?action=endpoint.&target_id=${first.id}`, { key: admin })).json as AuditAnswer;
  expect(filtered.data.map((entry) => entry.action)).toEqual(["endpoint.update", "endpoint.create"]);
  const byKeys = (await api.call("GET", "/audit-log?actor_type=api_key", { key: admin })).json as AuditAnswer;
  expect(byKeys.data.map((entry) => entry.target.name)).toEqual(["Made by a key"]);
  const later = (await api.call("GET", `/audit-log?from=${encodeURIComponent(new Date(Date.parse(answer.data[0]!.at) + 1).toISOString())}`, { key: admin })).json as AuditAnswer;
  expect(later.data).toEqual([]);
});

test("refuses a filter it cannot read with 400, and a developer key with 403", async ({ api, services, user }) => {
  const admin = await keyWithRole(services, user.actor, "owner");
  const bad = await api.call("GET", "/audit-log?action=drop%20table", { key: admin });
  expect(bad.status).toBe(400);
  expect(bad.json).toMatchObject({ error: { code: "validation_failed" } });
  expect((await api.call("GET", "/audit-log?limit=500", { key: admin })).status).toBe(400);
  expect((await api.call("GET", "/audit-log?cursor=nope", { key: admin })).status).toBe(400);
  const developer = await api.call("GET", "/audit-log", { key: await keyWithRole(services, user.actor, "developer") });
  expect(developer.status).toBe(403);
  expect(developer.json).toMatchObject({ error: { code: "forbidden", message: expect.stringContaining("admin") } });
});

test("exercised every answer its route declares, each checked against the document", ({ api }) => {
  expect(unexercised(api, "audit")).toEqual([]);
});
