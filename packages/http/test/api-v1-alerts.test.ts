import { expect } from "vitest";
import { startSink } from "@rehook/vitest-config/sink";
import { createEndpoint } from "@rehook/services";
import { document, keyWithRole, newPerson, test, unexercised } from "./api-server.js";

// /api/v1/alert-rules (admin keys): the team's rules as the Settings page has them, changed
// field by field, tested against a real webhook on loopback; what a key does is audited as its.

type WireRule = { id: string; name: string; trigger: string; threshold: number | null; endpoint: { id: string; name: string } | null; channel: string; target: string; secret: string | null; enabled: boolean; paused_reason: string | null; last_result: { ok: boolean; text: string } | null };

test("creates, lists, changes field by field, tests and deletes a rule", async ({ api, services, user }) => {
  const sink = await startSink((_req, res) => res.end("ok"));
  try {
    const admin = await keyWithRole(services, user.actor, "admin");
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Payments" });
    const created = await api.call("POST", "/alert-rules", {
      key: admin,
      body: { name: "Health", trigger: "health_low", threshold: 90, endpoint_id: endpoint.id, channel: "webhook", target: `http://127.0.0.1:${sink.port}/alerts` },
    });
    expect(created.status).toBe(201);
    const rule = created.json as WireRule;
    expect(rule).toMatchObject({ name: "Health", trigger: "health_low", threshold: 90, endpoint: { id: endpoint.id, name: "Payments" }, channel: "webhook", enabled: true, paused_reason: null, last_result: null });
    expect(rule.secret).toMatch(/^whsec_/);
    expect(((await api.call("GET", "/alert-rules", { key: admin })).json as { data: WireRule[] }).data.map((each) => each.id)).toEqual([rule.id]);

    // Only the fields given change; the rest stay as they were.
    const patched = await api.call("PATCH", `/alert-rules/${rule.id}`, { key: admin, body: { threshold: 75, enabled: false } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ name: "Health", threshold: 75, enabled: false, endpoint: { id: endpoint.id }, secret: rule.secret });

    const tested = await api.call("POST", `/alert-rules/${rule.id}/test`, { key: admin });
    expect(tested.status).toBe(200);
    expect(tested.json).toEqual({ ok: true, message: "Test alert sent: check the channel." });
    expect(sink.received).toHaveLength(1);
    expect(((await api.call("GET", "/alert-rules", { key: admin })).json as { data: WireRule[] }).data[0]!.last_result).toMatchObject({ ok: true, text: "test delivered" });
    // Looping the test button: refused at once, 429 with Retry-After and why, and nothing is sent.
    const again = await api.call("POST", `/alert-rules/${rule.id}/test`, { key: admin });
    expect(again.status).toBe(429);
    expect(again.json).toMatchObject({ error: { code: "rate_limited", message: expect.stringMatching(/^This rule was tested less than 30 s ago: a rule sends at most one test every 30 s\. Try again in \d+ s\.$/) } });
    const wait = Number(again.headers.get("retry-after"));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(30);
    expect(sink.received).toHaveLength(1);
    // The document says so: this route's 429 carries Retry-After.
    const declared = document.paths["/alert-rules/{id}/test"]!.post!.responses["429"] as { description: string; headers?: Record<string, unknown> };
    expect(declared.description).toMatch(/tests are paced: one per rule every 30 s, 20 per team and 20 per user in an hour/);
    // Its own 429 refers to the one Retry-After header, required (the shared 429 has it optional).
    expect(declared.headers?.["Retry-After"]).toEqual({ $ref: "#/components/headers/Retry-After" });
    const components = (document as unknown as { components: { headers: Record<string, { required?: boolean }> } }).components;
    expect(components.headers["Retry-After"]).toMatchObject({ required: true });

    expect((await api.call("DELETE", `/alert-rules/${rule.id}`, { key: admin })).status).toBe(204);
    expect((await api.call("DELETE", `/alert-rules/${rule.id}`, { key: admin })).status).toBe(404);
    expect((await api.call("PATCH", `/alert-rules/${rule.id}`, { key: admin, body: { enabled: true } })).status).toBe(404);
    expect((await api.call("POST", `/alert-rules/${rule.id}/test`, { key: admin })).status).toBe(404);
    const audited = await services.orm.em.fork().execute<Array<{ action: string; actor_type: string }>>("select action, actor_type from audit_log where team_id = ? and action like 'alert_rule.%' order by id", [user.teamId]);
    expect(audited).toEqual(["create", "update", "test", "delete"].map((action) => ({ action: `alert_rule.${action}`, actor_type: "api_key" })));
  } finally {
    await sink.close();
  }
});

test("refuses what the rule cannot be: 400 naming the field, 404 for another team's endpoint, 409 past 50 rules, 403 below admin", async ({ api, services, user }) => {
  const admin = await keyWithRole(services, user.actor, "owner");
  const base = { name: "Failures", trigger: "delivery_failed", channel: "webhook", target: "http://127.0.0.1:9/alerts" };
  const noThreshold = await api.call("POST", "/alert-rules", { key: admin, body: { ...base, trigger: "signature_invalid_rate" } });
  expect(noThreshold.status).toBe(400);
  expect(noThreshold.json).toMatchObject({ error: { code: "validation_failed", message: expect.stringMatching(/threshold/) } });
  expect((await api.call("POST", "/alert-rules", { key: admin, body: { ...base, channel: "pager" } })).status).toBe(400);
  const stranger = await newPerson(services);
  const theirs = await createEndpoint(services, { teamId: stranger.actor.teamId, name: "theirs" });
  expect((await api.call("POST", "/alert-rules", { key: admin, body: { ...base, endpoint_id: theirs.id } })).status).toBe(404);
  const first = (await api.call("POST", "/alert-rules", { key: admin, body: base })).json as WireRule;
  expect((await api.call("PATCH", `/alert-rules/${first.id}`, { key: admin, body: { target: "http://169.254.169.254/" } })).status).toBe(400);
  for (let n = 1; n < 50; n += 1) expect((await api.call("POST", "/alert-rules", { key: admin, body: { ...base, name: `rule ${n}` } })).status).toBe(201);
  const tooMany = await api.call("POST", "/alert-rules", { key: admin, body: base });
  expect(tooMany.status).toBe(409);
  expect(tooMany.json).toMatchObject({ error: { code: "conflict", message: expect.stringContaining("at most 50 alert rules") } });
  const developer = await api.call("GET", "/alert-rules", { key: await keyWithRole(services, user.actor, "developer") });
  expect(developer.status).toBe(403);
});

test("exercised every answer its routes declare, each checked against the document", ({ api }) => {
  expect(unexercised(api, "alerts")).toEqual([]);
});
