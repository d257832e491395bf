import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { standardWebhooksSignature, standardWebhooksKey, type UserError } from "@rehook/core";
import { Webhook } from "standardwebhooks";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  createAlertRule,
  createEndpoint,
  createTeam,
  deleteAlertRule,
  listAlertRulesOf,
  sendTestAlert,
  updateAlertRule,
  watchAlertThresholds,
  type AlertRuleView,
  type Services,
} from "@rehook/services";
import { createPool, type Pool } from "@rehook/db";
import { deleteTeam } from "../src/teams.js";
import { capture, expectRefused, test as base } from "./support.js";

// Alert rules through the graph's alert poster and job runner, to real HTTP channels on
// loopback: what each trigger raises, how each channel renders and signs it, pacing into a
// summary, pausing on a dead hook, the test button and the audit trail.

/** A pool of the test's own, for running the threshold watch by hand (the graph's job runs it once a minute). */
const test = base.extend<{ pool: Pool }>({
  pool: [
    async ({ database }, use) => {
      const pool = createPool({ databaseUrl: database.url, max: 2 });
      try {
        await use(pool);
      } finally {
        await pool.end();
      }
    },
    { scope: "file" },
  ],
});

interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  raw: Buffer;
  json: Record<string, unknown>;
}

let channel: Sink;
const received: Received[] = [];
let answer: (res: ServerResponse) => void = (res) => res.end("ok");
let destination: Sink;

beforeAll(async () => {
  channel = await startSink((req, res, body) => {
    // Replays land here too (not JSON): kept, with an empty object for json.
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(body.toString()) as Record<string, unknown>;
    } catch {}
    received.push({ path: req.url ?? "", headers: req.headers, raw: body, json });
    answer(res);
  });
  destination = await startSink((_req, res) => {
    res.statusCode = 503;
    res.end("down");
  });
});
afterEach(() => {
  answer = (res) => res.end("ok");
});
afterAll(async () => {
  await channel.close();
  await destination.close();
});

const hook = (path: string) => `http://127.0.0.1:${channel.port}${path}`;
/** Slack hooks must start with CHAT_HOOKS_BASE: here, the sink's /services. */
const withChat = (services: Services): Services => ({ ...services, chatHooksBase: hook("/services") });
const at = (path: string) => received.filter((post) => post.path === path);

/** An endpoint whose one attempt fails (503): each capture is a finally failed delivery. */
async function failingEndpoint(services: Services, teamId: string, name: string, extra: Record<string, unknown> = {}) {
  return createEndpoint(services, { teamId, name, destinationUrl: `http://127.0.0.1:${destination.port}/in`, retryPolicy: { maxAttempts: 1, initialDelayMs: 1_000, maxDelayMs: 1_000 }, ...extra });
}

describe("alert rules: saving", () => {
  test("checks each field, gives the webhook channel a whsec_ secret, and records the changes without secrets", async ({ services, user, other, database }) => {
    const ctx = withChat(services);
    const base = { teamId: user.teamId, by: user.actor, name: "Failures", trigger: "delivery_failed" as const, channel: "slack" as const, target: hook("/services/T/B/X") };
    await expectRefused(createAlertRule(ctx, { ...base, target: "https://hooks.example.com/x" }), "validation_failed", /Slack webhook URL refused/);
    await expectRefused(createAlertRule(ctx, { ...base, trigger: "health_low" }), "validation_failed", /health threshold/);
    await expectRefused(createAlertRule(ctx, { ...base, channel: "email", target: "ops@example.com" }), "validation_failed", /need SMTP_URL/);
    await expectRefused(createAlertRule(ctx, { ...base, channel: "webhook", target: "http://169.254.169.254/latest" }), "validation_failed", /Webhook URL refused/);
    const theirs = await createEndpoint(services, { teamId: other.teamId, name: "theirs" });
    await expectRefused(createAlertRule(ctx, { ...base, endpointId: theirs.id }), "not_found");

    const slack = await createAlertRule(ctx, base);
    expect(slack).toMatchObject({ name: "Failures", trigger: "delivery_failed", threshold: null, endpoint: null, channel: "slack", secret: null, enabled: true, pausedReason: null, lastResult: null });
    const webhook = await createAlertRule(ctx, { ...base, name: "Signed", channel: "webhook", target: hook("/signed") });
    expect(webhook.secret).toMatch(/^whsec_/);
    // The threshold goes with the rate triggers only.
    const health = await createAlertRule(ctx, { ...base, name: "Health", trigger: "health_low", threshold: 90, channel: "discord", target: hook("/discord") });
    expect(health.threshold).toBe(90);
    expect((await createAlertRule(ctx, { ...base, name: "No threshold", threshold: 50 })).threshold).toBeNull();

    await updateAlertRule(ctx, { ...base, id: slack.id, target: hook("/services/T/B/Y"), enabled: false });
    await deleteAlertRule(ctx, { teamId: user.teamId, by: user.actor, id: health.id });
    expect((await listAlertRulesOf(services, { teamId: user.teamId })).map((rule) => rule.name)).toEqual(["Failures", "Signed", "No threshold"]);
    expect(await listAlertRulesOf(services, { teamId: other.teamId })).toEqual([]);
    await expectRefused(deleteAlertRule(ctx, { teamId: other.teamId, id: slack.id }), "not_found");

    const entries = await database.query<{ action: string; target_name: string; changes: Record<string, unknown> | null }>(
      "select action, target_name, changes from audit_log where team_id = $1 and action like 'alert_rule.%' order by id",
      [user.teamId],
    );
    expect(entries.map((entry) => entry.action)).toEqual(["alert_rule.create", "alert_rule.create", "alert_rule.create", "alert_rule.create", "alert_rule.update", "alert_rule.delete"]);
    expect(entries[4]!.changes).toEqual({ target: "changed", enabled: { before: true, after: false } });
    const text = JSON.stringify(entries);
    expect(text).not.toContain("/services/T/B/");
    expect(text).not.toContain(webhook.secret!);
  });
});

describe("alert rules: triggers and channels", () => {
  test("a finally failed delivery reaches Slack, Discord, Teams and a signed webhook, each in its own format", async ({ services, user }) => {
    const ctx = withChat(services);
    const endpoint = await failingEndpoint(services, user.teamId, "Billing <b>*bold*</b> @everyone");
    const rule = (name: string, channelName: "slack" | "discord" | "teams" | "webhook", target: string) =>
      createAlertRule(ctx, { teamId: user.teamId, name, trigger: "delivery_failed", endpointId: endpoint.id, channel: channelName, target });
    await rule("slack", "slack", hook("/services/T/B/FAILED"));
    await rule("discord", "discord", hook("/discord/failed"));
    await rule("teams", "teams", hook("/teams/failed"));
    const signed = await rule("webhook", "webhook", hook("/webhook/failed"));
    const eventId = await capture(services, endpoint.slug, '{"type":"invoice.paid"}', [["Content-Type", "application/json"], ["X-Event-Type", "invoice.paid"]]);

    await waitFor(() => ["/services/T/B/FAILED", "/discord/failed", "/teams/failed", "/webhook/failed"].every((path) => at(path).length === 1), "an alert on every channel");
    const slack = at("/services/T/B/FAILED")[0]!.json as { text: string; blocks: Array<{ type: string; text?: { type: string; text: string } }> };
    expect(slack.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: "Webhook delivery failed" } });
    // Tenant text is plain text in Slack: no mrkdwn block carries it.
    expect(JSON.stringify(slack.blocks)).not.toContain("mrkdwn");
    expect(slack.text).toContain("the destination answered 503");

    const discord = at("/discord/failed")[0]!.json as { allowed_mentions: unknown; embeds: Array<{ title: string; url: string; fields: Array<{ name: string; value: string }> }> };
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0]!.url).toBe(`http://rehook.test/events/${eventId}`);
    expect(discord.embeds[0]!.fields[0]).toMatchObject({ name: "Endpoint", value: "Billing <b\\>\\*bold\\*</b\\> @everyone" });

    const teams = at("/teams/failed")[0]!.json as { attachments: Array<{ contentType: string; content: { actions: Array<{ url: string }> } }> };
    expect(teams.attachments[0]!.contentType).toBe("application/vnd.microsoft.card.adaptive");
    expect(teams.attachments[0]!.content.actions[0]!.url).toBe(`http://rehook.test/events/${eventId}`);

    const webhook = at("/webhook/failed")[0]!;
    expect(webhook.json).toMatchObject({ type: "alert.delivery_failed", data: { url: `http://rehook.test/events/${eventId}` } });
    const id = String(webhook.headers["webhook-id"]);
    const timestamp = String(webhook.headers["webhook-timestamp"]);
    expect(webhook.headers["webhook-signature"]).toBe(`v1,${standardWebhooksSignature(standardWebhooksKey(signed.secret!), id, timestamp, webhook.raw)}`);

    // Each rule's last result says it was delivered.
    await waitFor(async () => (await listAlertRulesOf(services, { teamId: user.teamId })).every((rule) => rule.lastResult?.ok === true), "the last results");
  });

  test("a breaker that trips raises destination_paused, once, with the reason", async ({ services, user }) => {
    const ctx = withChat(services);
    const endpoint = await createEndpoint(services, {
      teamId: user.teamId,
      name: "Breaker",
      destinationUrl: `http://127.0.0.1:${destination.port}/in`,
      retryPolicy: { maxAttempts: 3, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      pauseAfterFailures: 2,
    });
    await createAlertRule(ctx, { teamId: user.teamId, name: "Paused", trigger: "destination_paused", channel: "discord", target: hook("/discord/paused") });
    await capture(services, endpoint.slug, "1");
    await capture(services, endpoint.slug, "2");
    await waitFor(() => at("/discord/paused").length === 1, "the paused alert");
    const embed = (at("/discord/paused")[0]!.json as { embeds: Array<{ title: string; description: string }> }).embeds[0]!;
    expect(embed.title).toBe("Forwarding paused");
    expect(embed.description).toContain("2 consecutive failed attempts");
  });

  test("health below the threshold alerts once per crossing; invalid signatures above theirs too", async ({ services, user, pool }) => {
    const ctx = withChat(services);
    const failing = await failingEndpoint(services, user.teamId, "Unhealthy");
    const signed = await createEndpoint(services, { teamId: user.teamId, name: "Signed", verification: { scheme: "github", secret: "It's a Secret to Everybody" } });
    await createAlertRule(ctx, { teamId: user.teamId, name: "Health", trigger: "health_low", threshold: 90, channel: "webhook", target: hook("/webhook/health") });
    await createAlertRule(ctx, { teamId: user.teamId, name: "Signatures", trigger: "signature_invalid_rate", threshold: 20, endpointId: signed.id, channel: "discord", target: hook("/discord/signatures") });
    // Fewer outcomes than the minimum sample say nothing.
    const failed = [] as string[];
    for (let n = 0; n < 9; n += 1) failed.push(await capture(services, failing.slug, String(n)));
    for (let n = 0; n < 10; n += 1) await capture(services, signed.slug, String(n), [["X-Hub-Signature-256", "sha256=0000"]]);
    const outcomes = async () => (await services.orm.em.fork().execute<Array<{ n: number }>>("select coalesce(sum(failed), 0)::int as n from event_minutes where endpoint_id = ?", [failing.id]))[0]!.n;
    await waitFor(async () => (await outcomes()) === 9, "nine failed deliveries");
    expect(await watchAlertThresholds({ pool, orm: services.orm })).toBe(1); // the signatures only
    failed.push(await capture(services, failing.slug, "9"));
    await waitFor(async () => (await outcomes()) === 10, "the tenth");
    expect(await watchAlertThresholds({ pool, orm: services.orm })).toBe(1); // health now
    expect(await watchAlertThresholds({ pool, orm: services.orm })).toBe(0); // still past: no second alert
    await waitFor(() => at("/webhook/health").length === 1 && at("/discord/signatures").length === 1, "both alerts");
    expect(at("/webhook/health")[0]!.json).toMatchObject({
      type: "alert.health_low",
      data: { summary: "Unhealthy: 0% of deliveries succeeded in the last 15 minutes (threshold 90%).", fields: { Delivered: "0 of 10" } },
    });
    expect(JSON.stringify(at("/discord/signatures")[0]!.json)).toContain("100% of verified captures had an invalid signature");
  });

  test("a finished bulk replay alerts with its counts", async ({ services, user }) => {
    const ctx = withChat(services);
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Inbox" });
    await capture(services, endpoint.slug, "a");
    await capture(services, endpoint.slug, "b");
    await createAlertRule(ctx, { teamId: user.teamId, name: "Replays", trigger: "bulk_replay_finished", channel: "webhook", target: hook("/webhook/bulk") });
    await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "custom", customUrl: hook("/replayed"), status: null });
    await waitFor(() => at("/webhook/bulk").length === 1, "the bulk replay alert");
    expect(at("/webhook/bulk")[0]!.json).toMatchObject({ type: "alert.bulk_replay_finished", data: { fields: { Endpoint: "Inbox", Replayed: "2", Delivered: "2", Failed: "0" } } });
  });
});

describe("alert rules: pacing, dead channels and the test button", () => {
  test("a retried webhook post is a resend: the same webhook-id, a new timestamp and signature, both verified by standardwebhooks", async ({ services, user }) => {
    const endpoint = await failingEndpoint(services, user.teamId, "Resent");
    const rule = await createAlertRule(services, { teamId: user.teamId, name: "Resent", trigger: "delivery_failed", endpointId: endpoint.id, channel: "webhook", target: hook("/webhook/resent") });
    let answered = 0;
    answer = (res) => {
      answered += 1;
      // The first attempt fails (retried after 1 s); the second is taken.
      res.statusCode = answered === 1 ? 503 : 200;
      res.end(answered === 1 ? "down" : "ok");
    };
    await capture(services, endpoint.slug, "{}");
    await waitFor(() => at("/webhook/resent").length === 2, "the post and its retry");
    const receiver = new Webhook(rule.secret!);
    const [first, second] = at("/webhook/resent").map((post) => {
      const headers = Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, String(post.headers[name])]));
      expect(receiver.verify(post.raw.toString("utf8"), headers)).toMatchObject({ type: "alert.delivery_failed" });
      return { headers, body: post.raw.toString("utf8") };
    });
    expect(second!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
    expect(second!.body).toBe(first!.body);
    expect(Number(second!.headers["webhook-timestamp"])).toBeGreaterThanOrEqual(Number(first!.headers["webhook-timestamp"]));
    // Another alert is another message.
    await capture(services, endpoint.slug, "{}");
    await waitFor(() => at("/webhook/resent").length === 3, "the next alert");
    expect(at("/webhook/resent")[2]!.headers["webhook-id"]).not.toBe(first!.headers["webhook-id"]);
  });

  test("alerts due together while a post is paced are folded into one summary", async ({ services, user }) => {
    const ctx = withChat(services);
    const endpoint = await failingEndpoint(services, user.teamId, "Burst");
    await createAlertRule(ctx, { teamId: user.teamId, name: "Burst", trigger: "delivery_failed", channel: "discord", target: hook("/discord/burst") });
    for (let n = 0; n < 6; n += 1) await capture(services, endpoint.slug, String(n));
    await waitFor(async () => (await services.orm.em.fork().execute<Array<{ n: number }>>("select count(*)::int as n from alert_outbox o join alert_rules r on r.id = o.rule_id where r.team_id = ?", [user.teamId]))[0]!.n === 0 && at("/discord/burst").length > 0, "every alert posted");
    const titles = at("/discord/burst").map((post) => (post.json as { embeds: Array<{ title: string }> }).embeds[0]!.title);
    expect(titles.length).toBeLessThan(6);
    const summarized = titles.map((title) => (title === "Webhook delivery failed" ? 1 : Number(/^(\d+) alerts$/.exec(title)![1])));
    expect(summarized.reduce((sum, n) => sum + n, 0)).toBe(6);
  });

  test("a deleted hook (404) pauses the rule with the reason; saving it again resumes it", async ({ services, user }) => {
    const ctx = withChat(services);
    const endpoint = await failingEndpoint(services, user.teamId, "Gone");
    const rule = await createAlertRule(ctx, { teamId: user.teamId, name: "Gone", trigger: "delivery_failed", channel: "discord", target: hook("/discord/gone") });
    answer = (res) => {
      res.statusCode = 404;
      res.end('{"message": "Unknown Webhook"}');
    };
    await capture(services, endpoint.slug, "x");
    const read = async () => (await listAlertRulesOf(services, { teamId: user.teamId })).find((r) => r.id === rule.id)!;
    await waitFor(async () => (await read()).pausedReason !== null, "the rule to pause");
    expect((await read()).pausedReason).toMatch(/answered 404/);
    expect((await read()).lastResult).toMatchObject({ ok: false });
    answer = (res) => res.end("ok");
    await updateAlertRule(ctx, { teamId: user.teamId, id: rule.id, name: "Gone", trigger: "delivery_failed", channel: "discord", target: hook("/discord/back") });
    expect((await read()).pausedReason).toBeNull();
    await capture(services, endpoint.slug, "y");
    await waitFor(() => at("/discord/back").length === 1, "alerts again");
  });

  test("Send a test posts now and records the result, good or bad", async ({ services, user }) => {
    const ctx = withChat(services);
    const rule = await createAlertRule(ctx, { teamId: user.teamId, name: "Try", trigger: "bulk_replay_finished", channel: "teams", target: hook("/teams/try") });
    expect(await sendTestAlert(services, { teamId: user.teamId, id: rule.id })).toEqual({ ok: true, message: "Test alert sent: check the channel." });
    expect(JSON.stringify(at("/teams/try")[0]!.json)).toContain("Test alert from Rehook");
    answer = (res) => {
      res.statusCode = 400;
      res.end("bad");
    };
    // A second rule: the first may not be tested again so soon (see the pacing test).
    const again = await createAlertRule(ctx, { teamId: user.teamId, name: "Try again", trigger: "bulk_replay_finished", channel: "teams", target: hook("/teams/try") });
    const failed = await sendTestAlert(services, { teamId: user.teamId, id: again.id });
    expect(failed).toEqual({ ok: false, message: "the teams webhook refused the alert (HTTP 400)" });
    const stored = (await listAlertRulesOf(services, { teamId: user.teamId })).find((each) => each.id === again.id);
    expect(stored!.lastResult).toMatchObject({ ok: false, text: "test failed: the teams webhook refused the alert (HTTP 400)" });
    expect(stored!.pausedReason).toBeNull();
  });

  test("Send a test is paced: once per rule every 30 s, 20 per team in an hour, refused before anything is sent", async ({ services, user, other }) => {
    const ctx = withChat(services);
    const rules: AlertRuleView[] = [];
    for (let n = 0; n < 21; n += 1) rules.push(await createAlertRule(ctx, { teamId: user.teamId, name: `Loop ${n}`, trigger: "bulk_replay_finished", channel: "webhook", target: hook("/webhook/loop") }));
    expect((await sendTestAlert(services, { teamId: user.teamId, id: rules[0]!.id })).ok).toBe(true);
    const paced = await expectRefused(sendTestAlert(services, { teamId: user.teamId, id: rules[0]!.id }), "rate_limited", /^This rule was tested less than 30 s ago: a rule sends at most one test every 30 s\. Try again in \d+ s\.$/);
    const wait = (paced.details as { retryAfterSeconds: number }).retryAfterSeconds;
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(30);
    // The 20 other rules' tests at once, for 19 slots left in the hour: the database lets exactly 19 through.
    const settled = await Promise.allSettled(rules.slice(1).map((rule) => sendTestAlert(services, { teamId: user.teamId, id: rule.id })));
    expect(settled.filter((result) => result.status === "fulfilled" && result.value.ok)).toHaveLength(19);
    const refused = settled.flatMap((result) => (result.status === "rejected" ? [result.reason as UserError] : []));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toMatchObject({ code: "rate_limited", message: expect.stringMatching(/^This team has sent 20 test alerts in the last hour, its limit\. Try again in \d+ min\.$/) });
    expect((refused[0]!.details as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(3_000);
    expect(at("/webhook/loop")).toHaveLength(20);
    // Another team has its own count.
    const theirs = await createAlertRule(ctx, { teamId: other.teamId, name: "Theirs", trigger: "bulk_replay_finished", channel: "webhook", target: hook("/webhook/loop") });
    expect((await sendTestAlert(services, { teamId: other.teamId, id: theirs.id })).ok).toBe(true);
  });

  test("one user's tests are capped over all their teams, and deleting a team and making another frees nothing", async ({ services, user, database }) => {
    const ctx = withChat(services);
    const second = await createTeam(services, { userId: user.id, name: "Second" });
    const by = (teamId: string) => ({ ...user.actor, teamId });
    const rulesOf = async (teamId: string, count: number) => {
      const rules: AlertRuleView[] = [];
      for (let n = 0; n < count; n += 1) rules.push(await createAlertRule(ctx, { teamId, name: `Spread ${n}`, trigger: "bulk_replay_finished", channel: "webhook", target: hook("/webhook/spread") }));
      return rules;
    };
    // Ten tests in each team: each team is at half its own limit, the user at the whole of theirs.
    for (const teamId of [user.teamId, second.id]) {
      for (const rule of await rulesOf(teamId, 10)) expect((await sendTestAlert(services, { teamId, by: by(teamId), id: rule.id })).ok).toBe(true);
    }
    const [eleventh] = await rulesOf(second.id, 1);
    const userLimit = /^You have sent 20 test alerts in the last hour \(every team together\), your limit\. Try again in \d+ min\.$/;
    await expectRefused(sendTestAlert(services, { teamId: second.id, by: by(second.id), id: eleventh!.id }), "rate_limited", userLimit);
    // Delete both teams and make a new one: the ledger keeps the user's sends (the team is gone from them, not the rows).
    await deleteTeam(services, { teamId: second.id, by: by(second.id) });
    await deleteTeam(services, { teamId: user.teamId, by: user.actor });
    const kept = await database.query<{ count: string }>("select count(*) from alert_sends where user_id = $1 and team_id is null and test", [user.id]);
    expect(kept[0]!.count).toBe("20");
    const fresh = await createTeam(services, { userId: user.id, name: "Fresh" });
    const [rule] = await rulesOf(fresh.id, 1);
    await expectRefused(sendTestAlert(services, { teamId: fresh.id, by: by(fresh.id), id: rule!.id }), "rate_limited", userLimit);
    expect(at("/webhook/spread")).toHaveLength(20);
  });
});
