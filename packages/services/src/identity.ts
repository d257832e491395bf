import { emailSchema, INVITE_REQUIRED_MESSAGE, loginPasswordSchema, PASSWORD_LOGIN_OFF_MESSAGE, QueueFullError, SIGNUP_CLOSED_MESSAGE, startHint, UserError, type AuditOrigin } from "@rehook/core";
import { hashPassword, verifyPassword, type SessionCookie, type SessionUser } from "@rehook/auth";
import { anyUserExists, findUserByEmail, teamsOfUser } from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { inviteClaim } from "./invites.js";
import { signupMode } from "./signup-mode.js";
import { createUser } from "./users.js";
import { parseInput } from "./validation.js";
import { recordSignIn } from "./audit.js";

/** One message for an unknown email and a wrong password: nothing tells which it was. */
const WRONG_CREDENTIALS = "The email or the password is wrong. Check both and try again.";

// Compared against when the email is unknown, so both failures cost one hash.
let decoyHash: Promise<string> | undefined;
function decoy(): Promise<string> {
  decoyHash ??= hashPassword("decoy-password").catch((error: unknown) => {
    decoyHash = undefined; // a busy queue must not poison every later unknown-email login
    throw error;
  });
  return decoyHash;
}

export interface SignedIn {
  user: SessionUser;
  cookie: SessionCookie;
  /** The team an invite link added the new user to (the dashboard opens there). */
  joinedTeamId?: string | null;
}

function tooManyAttempts(what: string, retryAfterMs: number): UserError {
  const minutes = Math.max(1, Math.ceil(retryAfterMs / 60_000));
  return new UserError("rate_limited", `There were too many ${what}. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`, {
    retryAfterSeconds: Math.ceil(retryAfterMs / 1000),
  });
}

/** Password hashing is queued with a bound (see @rehook/auth): a full queue means "retry shortly", not a failure. */
async function withHashingSlot<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof QueueFullError) {
      throw new UserError("rate_limited", "The server is busy checking passwords. Try again in a few seconds.", { retryAfterSeconds: 5 });
    }
    throw error;
  }
}

/** PASSWORD_LOGIN=false: the password form neither signs in nor signs up (single sign-on does). */
function refuseWithoutPasswordLogin(ctx: Pick<ServiceContext, "passwordLogin">): void {
  if (ctx.passwordLogin === false) throw new UserError("forbidden", PASSWORD_LOGIN_OFF_MESSAGE);
}

export { signupMode };

/** Where to go after `rehook start`: the dashboard, or its sign-up page (or the CLI) for the first user. */
export async function startHintFor(ctx: Pick<ServiceContext, "orm" | "signup">, dashboardUrl: string): Promise<string> {
  return startHint(dashboardUrl, { signup: signupMode(ctx), usersExist: await anyUserExists(ctx.orm.em.fork()) });
}

/**
 * Creates an account and its first session, as SIGNUP allows: anyone (open), nobody
 * (closed: accounts come from `rehook user create`) or the holder of an unused invite
 * (invite). An invite link signs up in closed and invite modes only when SIGNUP lets its
 * maker's links create accounts (a server admin's; with invite, also an admin's of an operator's team):
 * it is claimed and judged in the transaction that creates the user, who joins its team with
 * its role. Sign-ups are limited per client address, counted before the password is hashed.
 */
export async function signUp(
  ctx: Pick<ServiceContext, "orm" | "sessions" | "throttles" | "signup" | "now" | "passwordLogin">,
  input: { email: string; password: string; clientAddress: string | null; requestId?: string | null; invite?: string | null },
): Promise<SignedIn> {
  refuseWithoutPasswordLogin(ctx);
  const mode = signupMode(ctx);
  // Without an invite, SIGNUP decides here; with one, the claim decides whether its maker may
  // let a newcomer in under SIGNUP (inviteCreatesAccounts), in the transaction that creates the user.
  if (mode === "closed" && !input.invite) throw new UserError("forbidden", SIGNUP_CLOSED_MESSAGE);
  if (mode === "invite" && !input.invite) throw new UserError("forbidden", INVITE_REQUIRED_MESSAGE);
  const address = input.clientAddress ?? "-";
  const verdict = ctx.throttles.signup.check(address);
  if (!verdict.allowed) throw tooManyAttempts("sign-ups from this address", verdict.retryAfterMs);
  ctx.throttles.signup.recordFailure(address);
  let joinedTeamId: string | null = null;
  const claim = input.invite ? inviteClaim(ctx, input.invite, (teamId) => (joinedTeamId = teamId), originOf(input)) : undefined;
  const created = await withHashingSlot(() => createUser(ctx, { email: input.email, password: input.password }, claim, { via: "sign_up", origin: originOf(input) }));
  const user = { id: created.id, email: created.email };
  await auditSignIn(ctx, "user.sign_in", { userId: user.id, email: user.email, origin: originOf(input) });
  return { user, cookie: await ctx.sessions.create(user.id), joinedTeamId };
}

const logInInput = z.object({ email: emailSchema, password: loginPasswordSchema });

/**
 * Checks the password and opens a new session (the caller ends any previous one: session
 * ids rotate at login). Attempts are limited per email, per address and per both (see
 * LoginThrottle), counted before the password hash runs.
 */
export async function logIn(
  ctx: Pick<ServiceContext, "orm" | "sessions" | "throttles" | "passwordLogin">,
  input: { email: string; password: string; clientAddress: string | null; requestId?: string | null },
): Promise<SignedIn> {
  refuseWithoutPasswordLogin(ctx);
  const { email, password } = parseInput(logInInput, { email: input.email, password: input.password });
  const attempt = ctx.throttles.login.begin(email, input.clientAddress);
  if (!attempt.allowed) throw tooManyAttempts("failed logins", attempt.retryAfterMs);
  let user: Awaited<ReturnType<typeof findUserByEmail>>;
  let valid: boolean;
  try {
    user = await findUserByEmail(ctx.orm.em.fork(), email);
        // An account made by single sign-on has no password: it costs the decoy's hash and fails.
    valid = await withHashingSlot(async () => (user?.passwordHash ? verifyPassword(password, user.passwordHash) : verifyPassword(password, await decoy()).then(() => false)));
  } catch (error) {
    attempt.abandoned(); // busy or broken: not a wrong password, so not counted against anyone
    throw error;
  }
  if (!user || !valid) {
    const reason = !user ? "no such account" : user.passwordHash ? "wrong password" : "the account signs in by single sign-on only";
    await auditSignIn(ctx, "user.sign_in_failed", { userId: user?.id ?? null, email, origin: originOf(input), reason });
    throw new UserError("unauthorized", WRONG_CREDENTIALS);
  }
  attempt.succeeded();
  // Recorded before the session exists: a session is never opened without its entry.
  await auditSignIn(ctx, "user.sign_in", { userId: user.id, email: user.email, origin: originOf(input) });
  return { user: { id: user.id, email: user.email }, cookie: await ctx.sessions.create(user.id) };
}

export const originOf = (input: { clientAddress: string | null; requestId?: string | null }) => ({ requestId: input.requestId ?? null, ip: input.clientAddress });

/**
 * A sign-in's entry, in every team of the account (so each team's admins see who signed in,
 * and failed attempts against their members); an unknown email's belongs to no team.
 */
export async function auditSignIn(
  ctx: Pick<ServiceContext, "orm">,
  action: "user.sign_in" | "user.sign_in_failed",
  attempt: { userId: string | null; email: string; origin: AuditOrigin; reason?: string; method?: "sso" },
): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    const teamIds = attempt.userId ? (await teamsOfUser(em, attempt.userId)).map((team) => team.id) : [];
    await recordSignIn(em, { action, teamIds, ...attempt });
  });
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
