import { describe, expect } from "vitest";
import { INVITE_REQUIRED_MESSAGE, SIGNUP_CLOSED_MESSAGE } from "@rehook/core";
import { AttemptLimiter, LoginThrottle } from "@rehook/auth";
import { createUser, currentSession, logIn, logOut, signUp, signupMode, type Services } from "@rehook/services";
import { expectRefused, PASSWORD, test } from "./support.js";

// Sign-up, log-in and sessions on the server's own session store: sessions open at sign-up
// and log-in, are read back from the cookie, end at log-out; failures say nothing about
// which part was wrong, and both are limited before any password hash runs.

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}@example.com`;
/** The Cookie header a browser sends back for a Set-Cookie value. */
const cookieHeader = (serialized: string) => serialized.split(";")[0]!;
const WRONG = "The email or the password is wrong. Check both and try again.";

/** The graph with throttles of the test's own, so counted failures stay in the test. */
function throttled(services: Services, limits: { signups?: number; logins?: number } = {}): Services {
  const perEmailAndAddress = limits.logins ?? 10;
  return {
    ...services,
    throttles: {
      login: new LoginThrottle({ windowMs: 15 * 60_000, perEmailAndAddress, perEmail: 10, perAddress: 100 }),
      signup: new AttemptLimiter({ maxFailures: limits.signups ?? 100, windowMs: 60 * 60_000 }),
    },
  };
}

describe("signUp", () => {
  test("is open when SIGNUP is unset: creates the account and its first session", async ({ services }) => {
    expect(signupMode(services)).toBe("open");
    const email = unique("new");
    const signed = await signUp(throttled(services), { email, password: PASSWORD, clientAddress: "192.0.2.10" });
    expect(signed.user).toEqual({ id: expect.any(String), email });
    expect(signed.cookie.serialized).toMatch(/HttpOnly/i);
    const session = await currentSession(services, cookieHeader(signed.cookie.serialized));
    expect(session).toMatchObject({ user: { id: signed.user.id, email } });
  });

  test("closed and invite modes refuse before anything is stored", async ({ services, database }) => {
    const email = unique("refused");
    await expectRefused(signUp({ ...throttled(services), signup: "closed" }, { email, password: PASSWORD, clientAddress: null }), "forbidden", SIGNUP_CLOSED_MESSAGE);
    await expectRefused(signUp({ ...throttled(services), signup: "invite" }, { email, password: PASSWORD, clientAddress: null, invite: null }), "forbidden", INVITE_REQUIRED_MESSAGE);
    expect(await database.query("select 1 from users where email = $1", [email])).toEqual([]);
  });

  test("refuses a taken email and a bad password with the account's own messages", async ({ services, user }) => {
    await expectRefused(signUp(throttled(services), { email: user.email, password: PASSWORD, clientAddress: null }), "conflict", /already exists/);
    await expectRefused(signUp(throttled(services), { email: unique("weak"), password: "short", clientAddress: null }), "validation_failed", "Password must be at least 8 characters.");
  });

  test("limits sign-ups per client address, failed ones included, and says for how long", async ({ services }) => {
    const ctx = throttled(services, { signups: 2 });
    await signUp(ctx, { email: unique("one"), password: PASSWORD, clientAddress: "198.51.100.7" });
    await expectRefused(signUp(ctx, { email: unique("two"), password: "short", clientAddress: "198.51.100.7" }), "validation_failed");
    const refused = await expectRefused(
      signUp(ctx, { email: unique("three"), password: PASSWORD, clientAddress: "198.51.100.7" }),
      "rate_limited",
      /^There were too many sign-ups from this address\. Try again in \d+ minutes?\.$/,
    );
    expect(refused.details).toEqual({ retryAfterSeconds: expect.any(Number) });
    expect((refused.details as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    // Another address is not held back.
    await signUp(ctx, { email: unique("elsewhere"), password: PASSWORD, clientAddress: "198.51.100.8" });
  });
});

describe("logIn, currentSession and logOut", () => {
  test("opens a session for the right password, with the email written any way", async ({ services }) => {
    const email = unique("login");
    const created = await createUser(services, { email, password: PASSWORD });
    const signed = await logIn(throttled(services), { email: ` ${email.toUpperCase()} `, password: PASSWORD, clientAddress: "192.0.2.20" });
    expect(signed.user).toEqual({ id: created.id, email });
    const session = await currentSession(services, `other=1; ${cookieHeader(signed.cookie.serialized)}`);
    expect(session).toMatchObject({ sessionId: expect.any(String), user: { id: created.id, email } });
  });

  test("answers a wrong password and an unknown email with the same message", async ({ services, user }) => {
    const ctx = throttled(services);
    await expectRefused(logIn(ctx, { email: user.email, password: "not the password", clientAddress: null }), "unauthorized", WRONG);
    await expectRefused(logIn(ctx, { email: unique("nobody"), password: PASSWORD, clientAddress: null }), "unauthorized", WRONG);
  });

  test("refuses a malformed email and an empty password before any check", async ({ services }) => {
    await expectRefused(logIn(throttled(services), { email: "nobody", password: PASSWORD, clientAddress: null }), "validation_failed", /valid email address/);
    await expectRefused(logIn(throttled(services), { email: unique("empty"), password: "", clientAddress: null }), "validation_failed", /^Password is required\.$/);
  });

  test("stops guessing after the limit, the right password too, from that address; a success before it clears the count", async ({ services }) => {
    const email = unique("guessed");
    await createUser(services, { email, password: PASSWORD });
    const ctx = throttled(services, { logins: 2 });
    await expectRefused(logIn(ctx, { email, password: "guess one", clientAddress: "203.0.113.5" }), "unauthorized");
    await logIn(ctx, { email, password: PASSWORD, clientAddress: "203.0.113.5" });
    await expectRefused(logIn(ctx, { email, password: "guess two", clientAddress: "203.0.113.5" }), "unauthorized");
    await expectRefused(logIn(ctx, { email, password: "guess three", clientAddress: "203.0.113.5" }), "unauthorized");
    const refused = await expectRefused(
      logIn(ctx, { email, password: PASSWORD, clientAddress: "203.0.113.5" }),
      "rate_limited",
      /^There were too many failed logins\. Try again in \d+ minutes?\.$/,
    );
    expect(refused.details).toEqual({ retryAfterSeconds: expect.any(Number) });
    // An address that has not failed still gets in with the right password.
    await logIn(ctx, { email, password: PASSWORD, clientAddress: "203.0.113.6" });
  });

  test("logOut ends the session and answers the cookie that clears it", async ({ services, user }) => {
    const cookie = await services.sessions.create(user.id);
    const session = await currentSession(services, cookieHeader(cookie.serialized));
    expect(session?.user.id).toBe(user.id);
    const blank = await logOut(services, session!.sessionId);
    expect(blank.name).toBe(cookie.name);
    expect(blank.serialized).toMatch(/Max-Age=0/i);
    expect(await currentSession(services, cookieHeader(cookie.serialized))).toBeNull();
  });

  test("currentSession is null without a cookie, with another cookie, or with a made-up session", async ({ services }) => {
    expect(await currentSession(services, undefined)).toBeNull();
    expect(await currentSession(services, "theme=dark")).toBeNull();
    expect(await currentSession(services, `${services.sessions.cookieName}=${"a".repeat(40)}`)).toBeNull();
  });
});
