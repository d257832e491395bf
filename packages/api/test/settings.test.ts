import { afterAll, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { test } from "@rehook/vitest-config/service-fixtures";
import { anonymousCaller, anotherUser, callerFor, expectRefused, MISSING_ID, newMember, rehookCode, type Caller } from "./caller.js";

const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";
const REFUSAL = "must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)";

let hooks: Sink;
beforeAll(async () => {
  // A chat provider's incoming webhook: Slack answers "ok".
  hooks = await startSink((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("ok");
  });
});
afterAll(() => hooks.close());

describe("without a session", () => {
  test("every settings procedure answers UNAUTHORIZED", async ({ services }) => {
    const { caller } = anonymousCaller(services);
    const calls: Array<(c: Caller) => Promise<unknown>> = [
      (c) => c.apiKeys.list(),
      (c) => c.apiKeys.create({ name: "x" }),
      (c) => c.apiKeys.revoke({ id: MISSING_ID }),
      (c) => c.notifications.get(),
      (c) => c.notifications.save({ enabled: false, webhookUrl: null, triggers: [] }),
      (c) => c.notifications.sendTest(),
      (c) => c.invites.list(),
      (c) => c.invites.create(),
      (c) => c.invites.revoke({ id: MISSING_ID }),
    ];
    for (const call of calls) await expectRefused(call(caller), "UNAUTHORIZED", "Sign in first, then try again.");
  });
});

describe("apiKeys", () => {
  test("issues an API key once, lists it by prefix only, and revokes it; another user's key is NOT_FOUND", async ({ services, user, database }) => {
    const alice = (await callerFor(services, user)).caller;
    const bob = (await callerFor(services, await anotherUser(services))).caller;
    const created = await alice.apiKeys.create({ name: "ci" });
    expect(created.key).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/);
    const stored = await database.query<{ key_hash: Buffer }>("select key_hash from api_keys where id = $1", [created.apiKey.id]);
    expect(stored[0]!.key_hash.toString("hex")).not.toContain(Buffer.from(created.key).toString("hex"));
    const listed = await alice.apiKeys.list();
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(listed.find((k) => k.id === created.apiKey.id)).toMatchObject({ name: "ci", prefix: created.key.slice(0, 12), revokedAt: null });
    expect(await bob.apiKeys.list()).toEqual([]);

    const foreign = await expectRefused(bob.apiKeys.revoke({ id: created.apiKey.id }), "NOT_FOUND");
    const absent = await expectRefused(bob.apiKeys.revoke({ id: MISSING_ID }), "NOT_FOUND");
    expect(rehookCode(foreign)).toBe("not_found");
    expect(foreign.message.replace(created.apiKey.id, "ID")).toBe(absent.message.replace(MISSING_ID, "ID"));
    expect(await alice.apiKeys.revoke({ id: created.apiKey.id })).toBeNull();
    const after = await alice.apiKeys.list();
    expect(after.find((k) => k.id === created.apiKey.id)!.revokedAt).not.toBeNull();
    await expectRefused(alice.apiKeys.revoke({ id: created.apiKey.id }), "NOT_FOUND", `There is no active API key with the id ${created.apiKey.id}. It may have been revoked already.`);
  });

  test("refuses a name with a NUL or an unpaired surrogate with BAD_REQUEST, and stores nothing", async ({ services, user, database }) => {
    const { caller } = await callerFor(services, user);
    for (const value of [NUL, LONE_SURROGATE]) {
      const error = await expectRefused(caller.apiKeys.create({ name: value }), "BAD_REQUEST", `The name ${REFUSAL}.`);
      expect(rehookCode(error)).toBe("validation_failed");
    }
    expect(await database.query("select name from api_keys where user_id = $1", [user.id])).toEqual([]);
  });
});

describe("notifications", () => {
  test("saves notification settings and refuses a hook URL it cannot use, saying what to fix; each user has their own", async ({ services, user }) => {
    const alice = (await callerFor(services, user)).caller;
    const bob = (await callerFor(services, await anotherUser(services))).caller;
    const quoted = await expectRefused(alice.notifications.save({ enabled: true, webhookUrl: '"https://hooks.slack.com/services/T/B/X"', triggers: ["failed"] }), "BAD_REQUEST", /quotes/);
    expect(rehookCode(quoted)).toBe("validation_failed");
    const elsewhere = await expectRefused(alice.notifications.save({ enabled: true, webhookUrl: "https://evil.example/services/x", triggers: ["failed"] }), "BAD_REQUEST");
    expect(elsewhere.message).toContain("https://hooks.slack.com");
    await expectRefused(alice.notifications.save({ enabled: true, webhookUrl: null, triggers: ["failed"] }), "BAD_REQUEST", "Enter the incoming-webhook URL to turn notifications on.");
    await expectRefused(
      alice.notifications.save({ enabled: true, webhookUrl: "https://hooks.slack.com/services/T/B/X", triggers: [] }),
      "BAD_REQUEST",
      "Choose at least one trigger to turn notifications on.",
    );
    expect(await alice.notifications.get()).toMatchObject({ enabled: false, webhookUrl: null });

    const saved = await alice.notifications.save({ enabled: true, webhookUrl: "https://hooks.slack.com/services/T/B/X", triggers: ["delivered", "failed"] });
    expect(saved).toMatchObject({ enabled: true, webhookUrl: "https://hooks.slack.com/services/T/B/X", triggers: ["failed", "delivered"] });
    expect(await alice.notifications.get()).toEqual(saved);
    expect(await bob.notifications.get()).toMatchObject({ enabled: false, webhookUrl: null });
  });

  test("sendTest: UNPROCESSABLE_CONTENT before a URL is saved; then posts a sample message to it", async ({ services, user }) => {
    // This test's hook base is the local sink (CHAT_HOOKS_BASE points there).
    const local = { ...services, chatHooksBase: `http://127.0.0.1:${hooks.port}` };
    const { caller } = await callerFor(services, user, { services: local });
    const error = await expectRefused(caller.notifications.sendTest(), "UNPROCESSABLE_CONTENT", "Save an incoming-webhook URL first, then send the test message.");
    expect(rehookCode(error)).toBe("unprocessable");
    await caller.notifications.save({ enabled: false, webhookUrl: `http://127.0.0.1:${hooks.port}/services/T/B/X`, triggers: [] });
    const received = hooks.received.length;
    expect(await caller.notifications.sendTest()).toEqual({ ok: true, message: "Test message sent: check the channel." });
    expect(hooks.received.slice(received).map((r) => [r.method, r.url])).toEqual([["POST", "/services/T/B/X"]]);
  });

  test("refuses a trigger it does not know before the use case runs, with the contract's sentence", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const error = await expectRefused(caller.notifications.save({ enabled: false, webhookUrl: null, triggers: ["sometimes" as "failed"] }), "BAD_REQUEST", /^Triggers: /);
    expect(rehookCode(error)).toBe("validation_failed");
  });
});

describe("invites", () => {
  // Invites belong to a team and are managed by its admins (before teams: by server admins).
  test("a developer of a team may not list, make or revoke its invites (FORBIDDEN naming the admin role)", async ({ services, user }) => {
    const developer = await newMember(services, user.actor, "developer");
    const { caller } = await callerFor(services, developer, { teamChoice: user.teamId });
    for (const call of [caller.invites.list(), caller.invites.create(), caller.invites.revoke({ id: MISSING_ID })]) {
      const error = await expectRefused(call, "FORBIDDEN", /needs the admin role in this team; you are a developer\.$/);
      expect(rehookCode(error)).toBe("forbidden");
    }
  });

  test("a team admin makes an invite link, sees it listed, and revokes it; another team's admin gets NOT_FOUND", async ({ services, user }) => {
    const admin = (await callerFor(services, user)).caller;
    const created = await admin.invites.create();
    expect(created.url).toMatch(/^http:\/\/rehook\.test\/signup\?invite=[^&]+$/);
    expect(created.invite).toMatchObject({ state: "open", usedBy: null, role: "developer", createdBy: user.email });
    expect(await admin.invites.list()).toEqual([created.invite]);
    expect(JSON.stringify(await admin.invites.list())).not.toContain(new URL(created.url).searchParams.get("invite")!);

    const otherAdmin = (await callerFor(services, await anotherUser(services))).caller;
    expect(await otherAdmin.invites.list()).toEqual([]);
    const message = "That invite no longer exists or has been used already. Reload the page to see the team's invites.";
    expect(rehookCode(await expectRefused(otherAdmin.invites.revoke({ id: created.invite.id }), "NOT_FOUND", message))).toBe("not_found");
    expect(await admin.invites.revoke({ id: created.invite.id })).toBeNull();
    expect(await admin.invites.list()).toEqual([expect.objectContaining({ id: created.invite.id, state: "revoked" })]);
    await expectRefused(admin.invites.revoke({ id: created.invite.id }), "NOT_FOUND", message);
  });
});
