import { createHash, randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { AttemptLimiter } from "@rehook/auth";
import { INVITE_REQUIRED_MESSAGE, SIGNUP_CLOSED_MESSAGE } from "@rehook/core";
import { actorFor, createInvite, createUser, currentSession, type Services } from "@rehook/services";
import { test } from "@rehook/vitest-config/service-fixtures";
import { anonymousCaller, callerFor, expectRefused, rehookCode } from "./caller.js";

const password = "a long enough password";
const WRONG_CREDENTIALS = "The email or the password is wrong. Check both and try again.";

/** Emails and client addresses of this test alone: the file's database and throttles are shared. */
const unique = () => randomBytes(4).toString("hex");
const emailOf = (name: string) => `${name}-${unique()}@example.com`;
let addresses = 0;
const addressOf = () => {
  addresses += 1;
  return `198.18.${Math.floor(addresses / 256)}.${addresses % 256}`;
};

/** The Cookie header a browser sends back for a Set-Cookie value. */
const cookieHeader = (serialized: string) => serialized.split(";")[0]!;
const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");

function withSignup(services: Services, signup: Services["signup"]): Services {
  return { ...services, signup };
}

describe("auth.me", () => {
  test("is null without a session and the session's user with one", async ({ services, user }) => {
    expect(await anonymousCaller(services).caller.auth.me()).toBeNull();
    expect(await (await callerFor(services, user)).caller.auth.me()).toEqual({ id: user.id, email: user.email });
  });
});

describe("auth.signUp", () => {
  test("creates the account, answers its user and sets a session cookie that signs it in", async ({ services }) => {
    const { caller, cookies } = anonymousCaller(services, { clientAddress: addressOf() });
    const email = emailOf("new");
    const created = await caller.auth.signUp({ email, password });
    expect(created).toEqual({ id: expect.any(String), email });
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^rehook_session=[^;]+;/);
    expect((await currentSession(services, cookieHeader(cookies[0]!)))?.user).toEqual(created);
  });

  test("stores only a SHA-256 of the session id", async ({ services, database }) => {
    const { caller, cookies } = anonymousCaller(services, { clientAddress: addressOf() });
    const created = await caller.auth.signUp({ email: emailOf("hashed"), password });
    const id = cookieHeader(cookies[0]!).split("=")[1]!;
    const rows = await database.query<{ id: string }>("select id from sessions where user_id = $1", [created.id]);
    expect(rows.map((r) => r.id)).toEqual([sha256Hex(id)]);
  });

  test("refuses an email that has an account with CONFLICT, and sets no cookie", async ({ services, user }) => {
    const { caller, cookies } = anonymousCaller(services, { clientAddress: addressOf() });
    const error = await expectRefused(caller.auth.signUp({ email: user.email, password }), "CONFLICT", `A user with the email ${user.email} already exists. Log in instead, or use another email.`);
    expect(rehookCode(error)).toBe("conflict");
    expect(cookies).toEqual([]);
  });

  test("refuses a malformed email or a short password with BAD_REQUEST (validation_failed)", async ({ services }) => {
    const { caller } = anonymousCaller(services, { clientAddress: addressOf() });
    expect(rehookCode(await expectRefused(caller.auth.signUp({ email: "not-an-email", password }), "BAD_REQUEST"))).toBe("validation_failed");
    expect(rehookCode(await expectRefused(caller.auth.signUp({ email: emailOf("short"), password: "short" }), "BAD_REQUEST"))).toBe("validation_failed");
  });

  test("limits sign-ups per client address with TOO_MANY_REQUESTS", async ({ services }) => {
    const limited = { ...services, throttles: { ...services.throttles, signup: new AttemptLimiter({ maxFailures: 1, windowMs: 60_000 }) } };
    const address = addressOf();
    await anonymousCaller(services, { services: limited, clientAddress: address }).caller.auth.signUp({ email: emailOf("first"), password });
    const second = anonymousCaller(services, { services: limited, clientAddress: address }).caller;
    const error = await expectRefused(second.auth.signUp({ email: emailOf("second"), password }), "TOO_MANY_REQUESTS", /^There were too many sign-ups from this address\. Try again in \d+ minutes?\.$/);
    expect(rehookCode(error)).toBe("rate_limited");
    // Another address is not held back.
    await anonymousCaller(services, { services: limited, clientAddress: addressOf() }).caller.auth.signUp({ email: emailOf("elsewhere"), password });
  });

  test("SIGNUP=closed: refuses with FORBIDDEN saying how to get an account, and creates nobody", async ({ services, database }) => {
    const closed = withSignup(services, "closed");
    const { caller, cookies } = anonymousCaller(services, { services: closed, clientAddress: addressOf() });
    expect(await caller.auth.signupPolicy({})).toEqual({ mode: "closed", invite: null });
    const email = emailOf("trpc");
    const error = await expectRefused(caller.auth.signUp({ email, password }), "FORBIDDEN", SIGNUP_CLOSED_MESSAGE);
    expect(error.message).toMatch(/^Sign-up is closed on this server\. .*rehook user create/);
    expect(cookies).toEqual([]);
    expect(await database.query("select 1 from users where email = $1", [email])).toEqual([]);
  });

  test("SIGNUP=invite: refuses without an invite, signs up with one, and the link then reads as used", async ({ services, database }) => {
    const invited = withSignup(services, "invite");
    const admin = await createUser(services, { email: emailOf("admin"), password, isAdmin: true });
    const { actor } = await actorFor(services, { userId: admin.id });
    const token = new URL((await createInvite(services, actor, {})).url).searchParams.get("invite")!;
    const { caller, cookies } = anonymousCaller(services, { services: invited, clientAddress: addressOf() });
    expect(await caller.auth.signupPolicy({ invite: token })).toEqual({ mode: "invite", invite: "open" });
    expect(await caller.auth.signupPolicy({ invite: "not-a-token" })).toEqual({ mode: "invite", invite: "unknown" });
    expect(await caller.auth.signupPolicy({})).toEqual({ mode: "invite", invite: null });

    const refusedEmail = emailOf("uninvited");
    await expectRefused(caller.auth.signUp({ email: refusedEmail, password }), "FORBIDDEN", INVITE_REQUIRED_MESSAGE);
    expect(await database.query("select 1 from users where email = $1", [refusedEmail])).toEqual([]);

    const email = emailOf("invited");
    expect(await caller.auth.signUp({ email, password, invite: token })).toMatchObject({ email });
    // The session, then the team choice: the invite's team (the admin's) is where the dashboard opens.
    expect(cookies).toHaveLength(2);
    expect(cookies[0]).toMatch(/^rehook_session=[^;]+;/);
    expect(cookies[1]).toMatch(new RegExp(`^rehook_team=${actor.teamId};`));
    expect(await caller.auth.signupPolicy({ invite: token })).toEqual({ mode: "invite", invite: "used" });
    await expectRefused(
      caller.auth.signUp({ email: emailOf("again"), password, invite: token }),
      "FORBIDDEN",
      "This invite link has already been used. Ask an admin of this Rehook server for a new one.",
    );
  });

  test("refuses an invite token over 200 characters before it is looked up", async ({ services }) => {
    const { caller } = anonymousCaller(services, { services: withSignup(services, "invite") });
    const error = await expectRefused(caller.auth.signupPolicy({ invite: "x".repeat(201) }), "BAD_REQUEST");
    expect(rehookCode(error)).toBeNull(); // refused by the input schema, not the use case
  });

  test("SIGNUP unset: open", async ({ services }) => {
    expect(await anonymousCaller(services).caller.auth.signupPolicy({ invite: "ignored" })).toEqual({ mode: "open", invite: null });
  });
});

describe("auth.logIn", () => {
  test("answers an unknown email and a wrong password with the same UNAUTHORIZED message", async ({ services }) => {
    const email = emailOf("login");
    await createUser(services, { email, password });
    const { caller, cookies } = anonymousCaller(services, { clientAddress: addressOf() });
    const unknown = await expectRefused(caller.auth.logIn({ email: emailOf("nobody"), password }), "UNAUTHORIZED", WRONG_CREDENTIALS);
    const wrong = await expectRefused(caller.auth.logIn({ email, password: "not the password" }), "UNAUTHORIZED", WRONG_CREDENTIALS);
    expect(rehookCode(unknown)).toBe("unauthorized");
    expect(rehookCode(wrong)).toBe("unauthorized");
    expect(cookies).toEqual([]);
  });

  test("logs in with the right password: a new session id, and the one the browser had ends", async ({ services }) => {
    const email = emailOf("rotate");
    const user = await createUser(services, { email, password });
    const before = await callerFor(services, user, { clientAddress: addressOf() });
    const first = before.context.session!.sessionId;
    expect(await before.caller.auth.logIn({ email, password })).toEqual({ id: user.id, email });
    expect(before.cookies).toHaveLength(1);
    const next = await currentSession(services, cookieHeader(before.cookies[0]!));
    expect(next?.user).toEqual({ id: user.id, email });
    expect(next!.sessionId).not.toBe(first);
    expect(await currentSession(services, `rehook_session=${first}`)).toBeNull();
  });

  test("limits failed logins per email, per address and per both, without locking out a NAT or the account's owner", async ({ services }) => {
    const email = emailOf("limited");
    const neighbour = emailOf("neighbour");
    await createUser(services, { email, password });
    await createUser(services, { email: neighbour, password });
    const from = (address: string) => anonymousCaller(services, { clientAddress: address }).caller;
    const attacker = addressOf();
    for (let i = 0; i < 10; i += 1) await expectRefused(from(attacker).auth.logIn({ email, password: `wrong ${i}` }), "UNAUTHORIZED", WRONG_CREDENTIALS);
    // The attacker's 11th guess is refused before any password is checked, even a right one.
    const refused = await expectRefused(from(attacker).auth.logIn({ email, password }), "TOO_MANY_REQUESTS", /^There were too many failed logins\. Try again in /);
    expect(rehookCode(refused)).toBe("rate_limited");

    // Someone else behind the attacker's NAT still logs in to their own account.
    expect(await from(attacker).auth.logIn({ email: neighbour, password })).toMatchObject({ email: neighbour });
    // The owner, from an address that has not failed, gets in with the right password ...
    expect(await from(addressOf()).auth.logIn({ email, password })).toMatchObject({ email });
    // ... while a wrong guess from a fresh address is counted and the next one refused there.
    const fresh = addressOf();
    await expectRefused(from(fresh).auth.logIn({ email, password: "wrong again" }), "UNAUTHORIZED");
    await expectRefused(from(fresh).auth.logIn({ email, password }), "TOO_MANY_REQUESTS");
  });
});

describe("auth.logOut", () => {
  test("refuses without a session", async ({ services }) => {
    await expectRefused(anonymousCaller(services).caller.auth.logOut(), "UNAUTHORIZED", "Sign in first, then try again.");
  });

  test("ends the session, deletes its row and sets a blank cookie", async ({ services, user, database }) => {
    const { caller, context, cookies } = await callerFor(services, user);
    const id = context.session!.sessionId;
    expect(await caller.auth.logOut()).toBeNull();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(/^rehook_session=;/);
    expect(await currentSession(services, `rehook_session=${id}`)).toBeNull();
    expect(await database.query("select 1 from sessions where id = $1", [sha256Hex(id)])).toHaveLength(0);
  });
});
