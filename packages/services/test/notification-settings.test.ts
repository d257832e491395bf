import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, afterEach, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createEndpoint, getNotificationSettings, saveNotificationSettings, sendTestNotification, type Services } from "@rehook/services";
import { capture, expectRefused, test } from "./support.js";

// Chat notification settings: saved only when they can work (a hook under CHAT_HOOKS_BASE,
// at least one trigger), read back per team with why posting stopped, and tried out with a
// test message. The posting itself runs in the graph's notifier: the saved triggers decide
// what is posted, a refused hook pauses it, and saving a new URL resumes it.

interface Post {
  url: string;
  json: { text: string; blocks: Array<{ type: string; text?: { type: string; text: string } }> };
}

/** A fake Slack-compatible provider: records each post and answers as the test says. */
let provider: Sink;
const posts: Post[] = [];
const answerOk = (res: ServerResponse) => res.end("ok");
let answerPost: (res: ServerResponse) => void = answerOk;
/** A forwarding destination that answers 200, or 503 while `failing`. */
let destination: Sink;
let failing = false;

beforeAll(async () => {
  provider = await startSink((req: IncomingMessage, res, body) => {
    posts.push({ url: req.url ?? "", json: JSON.parse(body.toString()) as Post["json"] });
    answerPost(res);
  });
  destination = await startSink((_req, res) => {
    res.statusCode = failing ? 503 : 200;
    res.end(failing ? "unavailable" : "ok");
  });
});
afterEach(() => {
  answerPost = answerOk;
  failing = false;
});
afterAll(async () => {
  await provider.close();
  await destination.close();
});

const base = () => `http://127.0.0.1:${provider.port}/services`;
/** The graph with the fake provider as CHAT_HOOKS_BASE (hooks must start with it). */
const withChat = (services: Services): Services => ({ ...services, chatHooksBase: base() });
const OFF = { enabled: false, webhookUrl: null, triggers: ["failed"], pausedReason: null, lastError: null };

describe("getNotificationSettings and saveNotificationSettings", () => {
  test("a team without settings reads them off, for failures; saving answers what is stored, triggers once each in their order", async ({ services, user }) => {
    expect(await getNotificationSettings(services, { teamId: user.teamId })).toEqual(OFF);
    const saved = await saveNotificationSettings(withChat(services), { teamId: user.teamId, enabled: true, webhookUrl: `${base()}/T/B/X`, triggers: ["captured", "failed", "captured"] });
    expect(saved).toEqual({ enabled: true, webhookUrl: `${base()}/T/B/X`, triggers: ["failed", "captured"], pausedReason: null, lastError: null });
    expect(await getNotificationSettings(services, { teamId: user.teamId })).toEqual(saved);
  });

  test("each team reads only its own", async ({ services, user, other }) => {
    await saveNotificationSettings(withChat(services), { teamId: user.teamId, enabled: true, webhookUrl: `${base()}/T/B/MINE`, triggers: ["delivered"] });
    expect(await getNotificationSettings(services, { teamId: other.teamId })).toEqual(OFF);
  });

  test("refuses settings that cannot work, and a hook outside CHAT_HOOKS_BASE, storing nothing", async ({ services, user }) => {
    const chat = withChat(services);
    const save = (input: { enabled: boolean; webhookUrl: string | null; triggers: string[] }) =>
      saveNotificationSettings(chat, { teamId: user.teamId, ...input } as Parameters<typeof saveNotificationSettings>[1]);
    await expectRefused(save({ enabled: true, webhookUrl: null, triggers: ["failed"] }), "validation_failed", "Enter the incoming-webhook URL to turn notifications on.");
    await expectRefused(save({ enabled: true, webhookUrl: "", triggers: ["failed"] }), "validation_failed", "Enter the incoming-webhook URL to turn notifications on.");
    await expectRefused(save({ enabled: true, webhookUrl: `${base()}/T/B/X`, triggers: [] }), "validation_failed", "Choose at least one trigger to turn notifications on.");
    await expectRefused(save({ enabled: true, webhookUrl: "https://hooks.example.com/services/T/B/X", triggers: ["failed"] }), "validation_failed", /^webhook URL refused: /);
    await expectRefused(save({ enabled: true, webhookUrl: `${base()}/T/B/X`, triggers: ["always"] }), "validation_failed");
    expect(await getNotificationSettings(services, { teamId: user.teamId })).toEqual(OFF);
    // Off, a hook and triggers are optional.
    expect(await save({ enabled: false, webhookUrl: null, triggers: [] })).toEqual({ ...OFF, triggers: [] });
  });
});

describe("sendTestNotification", () => {
  test("asks for a saved hook first", async ({ services, user }) => {
    await expectRefused(sendTestNotification(services, { teamId: user.teamId }), "unprocessable", "Save an incoming-webhook URL first, then send the test message.");
  });

  test("sends a test message on request and reports the provider's refusal with the fix", async ({ services, user }) => {
    await saveNotificationSettings(withChat(services), { teamId: user.teamId, enabled: true, webhookUrl: `${base()}/T000/B000/TEST`, triggers: ["failed"] });
    const before = posts.length;
    expect(await sendTestNotification(services, { teamId: user.teamId })).toEqual({ ok: true, message: "Test message sent: check the channel." });
    expect(posts.length).toBe(before + 1);
    expect(posts.at(-1)!.url).toBe("/services/T000/B000/TEST");
    // Paced as an alert rule's test is: again right away is refused, and nothing is posted.
    await expectRefused(sendTestNotification(services, { teamId: user.teamId, by: user.actor }), "rate_limited", /^This chat hook was tested less than 30 s ago: a chat hook sends at most one test every 30 s\. Try again in \d+ s\.$/);
    expect(posts.length).toBe(before + 1);
    answerPost = (res) => {
      res.statusCode = 403;
      res.end("invalid_token");
    };
    // 31 s later by the services' clock.
    const later = { ...services, now: () => Date.now() + 31_000 };
    expect(await sendTestNotification(later, { teamId: user.teamId })).toEqual({ ok: false, message: "invalid_token: the hook was revoked or rotated: save a new URL" });
    // Trying a URL out does not pause anything.
    expect((await getNotificationSettings(services, { teamId: user.teamId })).pausedReason).toBeNull();
  });

  test("the chat hook's tests count with the alert rules' tests in the user's hour", async ({ services, user, database }) => {
    await saveNotificationSettings(withChat(services), { teamId: user.teamId, enabled: false, webhookUrl: `${base()}/T000/B000/COUNT`, triggers: ["failed"] });
    // The user's hour is full (20 tests of alert rules in other teams, say): the hook's test is refused before it posts.
    const halfAnHourAgo = Date.now() - 30 * 60_000;
    await database.query(`insert into alert_sends (team_id, user_id, subject, test, email, sent_at) select null, $1, 'elsewhere', true, false, $2 from generate_series(1, 20)`, [user.id, new Date(halfAnHourAgo)]);
    const before = posts.length;
    await expectRefused(sendTestNotification(services, { teamId: user.teamId, by: user.actor }), "rate_limited", /^You have sent 20 test alerts in the last hour \(every team together\), your limit\. Try again in 30 min\.$/);
    expect(posts.length).toBe(before);
  });
});

describe("what the saved settings make the notifier post", () => {
  test("respects the triggers", async ({ services, user, database }) => {
    const forwarding = await createEndpoint(services, { teamId: user.teamId, name: "stripe-prod", destinationUrl: `http://127.0.0.1:${destination.port}/hooks` });
    const captureOnly = await createEndpoint(services, { teamId: user.teamId, name: "inbox" });
    await saveNotificationSettings(withChat(services), { teamId: user.teamId, enabled: true, webhookUrl: `${base()}/T000/B000/XXXX`, triggers: ["failed"] });
    const before = posts.length;
    const type = (name: string) => JSON.stringify({ type: name });
    const delivered = await capture(services, forwarding.slug, type("quiet.delivered"));
    await capture(services, captureOnly.slug, type("quiet.captured"));
    // Delivered before the destination starts failing, so it is delivered for sure.
    await waitFor(async () => (await database.query("select 1 from events where id = $1 and status = 'delivered'", [delivered])).length === 1, "the delivery");
    failing = true;
    const failed = await capture(services, forwarding.slug, type("loud.failed"));
    await waitFor(() => posts.length > before, "the failed message");
    const posted = posts.slice(before);
    expect(posted).toHaveLength(1);
    expect(posted[0]!.json.blocks[1]!.text!.text).toContain("loud.failed");
    expect(JSON.stringify(posted[0]!.json)).toContain(failed);
  });

  test("pauses on channel_not_found, shows why in the settings, and resumes when a new URL is saved", async ({ services, user, database }) => {
    const captureOnly = await createEndpoint(services, { teamId: user.teamId, name: "inbox" });
    await saveNotificationSettings(withChat(services), { teamId: user.teamId, enabled: true, webhookUrl: `${base()}/T000/B000/DEAD`, triggers: ["captured"] });
    answerPost = (res) => {
      res.statusCode = 404;
      res.end("channel_not_found");
    };
    const before = posts.length;
    await capture(services, captureOnly.slug, JSON.stringify({ type: "to.dead.channel" }));
    let settings = await getNotificationSettings(services, { teamId: user.teamId });
    await waitFor(async () => {
      settings = await getNotificationSettings(services, { teamId: user.teamId });
      return settings.pausedReason !== null;
    }, "notifications to pause");
    expect(settings.pausedReason).toBe("channel_not_found: the channel no longer exists or the app cannot post there: recreate the hook and save the new URL");
    expect(settings.enabled).toBe(true);
    expect(posts.length).toBe(before + 1);

    // While paused nothing is queued or posted.
    answerPost = answerOk;
    await capture(services, captureOnly.slug, JSON.stringify({ type: "while.paused" }));
    expect(await database.query("select 1 from notification_outbox where team_id = $1", [user.teamId])).toHaveLength(0);

    const resumed = await saveNotificationSettings(withChat(services), { teamId: user.teamId, enabled: true, webhookUrl: `${base()}/T111/B111/YYYY`, triggers: ["captured"] });
    expect(resumed.pausedReason).toBeNull();
    expect((await getNotificationSettings(services, { teamId: user.teamId })).pausedReason).toBeNull();
    await capture(services, captureOnly.slug, JSON.stringify({ type: "after.resume" }));
    await waitFor(() => posts.some((post) => post.url === "/services/T111/B111/YYYY"), "a post to the new URL");
    expect(posts.at(-1)!.json.blocks[1]!.text!.text).toBe("after.resume was captured");
  });
});
