import { emailSchema, UserError } from "@rehook/core";
import { hashPassword, verifyPassword, type SessionCookie, type SessionUser } from "@rehook/auth";
import { findUserByEmail } from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { createUser } from "./users.js";
import { parseInput } from "./validation.js";

/** One message for an unknown email and a wrong password: nothing tells which it was. */
const WRONG_CREDENTIALS = "wrong email or password";

// Compared against when the email is unknown, so both failures cost one hash.
let decoyHash: Promise<string> | undefined;

export interface SignedIn {
  user: SessionUser;
  cookie: SessionCookie;
}

/** Creates an account and its first session. */
export async function signUp(ctx: Pick<ServiceContext, "orm" | "sessions">, input: { email: string; password: string }): Promise<SignedIn> {
  const user = await createUser(ctx, input);
  return { user, cookie: await ctx.sessions.create(user.id) };
}

const logInInput = z.object({ email: emailSchema, password: z.string().min(1, "enter your password") });

/**
 * Checks the password and opens a new session (the caller ends any previous one: session
 * ids rotate at login). Failed attempts are limited per email and per client address.
 */
export async function logIn(
  ctx: Pick<ServiceContext, "orm" | "sessions" | "loginLimiter">,
  input: { email: string; password: string; clientAddress: string | null },
): Promise<SignedIn> {
  const { email, password } = parseInput(logInInput, { email: input.email, password: input.password });
  const keys = [`email:${email}`, ...(input.clientAddress ? [`ip:${input.clientAddress}`] : [])];
  for (const key of keys) {
    const verdict = ctx.loginLimiter.check(key);
    if (!verdict.allowed) {
      const minutes = Math.max(1, Math.ceil(verdict.retryAfterMs / 60_000));
      throw new UserError("rate_limited", `too many failed logins: try again in ${minutes} minute${minutes === 1 ? "" : "s"}`, {
        retryAfterSeconds: Math.ceil(verdict.retryAfterMs / 1000),
      });
    }
  }
  const user = await findUserByEmail(ctx.orm.em.fork(), email);
  const valid = user ? await verifyPassword(password, user.passwordHash) : await verifyPassword(password, await (decoyHash ??= hashPassword("decoy-password")));
  if (!user || !valid) {
    for (const key of keys) ctx.loginLimiter.recordFailure(key);
    throw new UserError("unauthorized", WRONG_CREDENTIALS);
  }
  ctx.loginLimiter.reset(`email:${email}`);
  return { user: { id: user.id, email: user.email }, cookie: await ctx.sessions.create(user.id) };
}

export async function logOut(ctx: Pick<ServiceContext, "sessions">, sessionId: string): Promise<SessionCookie> {
  await ctx.sessions.end(sessionId);
  return ctx.sessions.blankCookie();
}

export interface CurrentSession {
  sessionId: string;
  user: SessionUser;
  /** Set when the session was extended: send it back so the browser keeps it. */
  refreshed: SessionCookie | null;
}

/** The session a Cookie header carries, if it is valid. */
export async function currentSession(ctx: Pick<ServiceContext, "sessions">, cookieHeader: string | undefined | null): Promise<CurrentSession | null> {
  const sessionId = ctx.sessions.readSessionId(cookieHeader);
  if (!sessionId) return null;
  const validated = await ctx.sessions.validate(sessionId);
  return validated ? { sessionId, ...validated } : null;
}
