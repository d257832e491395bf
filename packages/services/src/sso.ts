import { safeRedirectPath, ssoDomainAllowed, UserError, type AuditOrigin, type Logger, type SsoConfig, type SsoFailure } from "@rehook/core";
import { OpenIdSignInError, type PendingSignIn, type VerifiedIdentity } from "@rehook/auth";
import { addTeamMember, findUserByEmail, findUserByIdentity, linkIdentity, teamsOfUser, type EntityManager } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { cookieValue, dashboardCookie } from "./cookies.js";
import { auditSignIn, originOf, signupMode, type SignedIn } from "./identity.js";
import { duplicateEmailAsConflict, insertAccount } from "./users.js";
import { recordAccountAudit, recordAudit } from "./audit.js";
import { operatorTeamBySlug } from "./default-team.js";

/** The browser's half of a sign-in under way: set at the start, read and cleared at the callback. */
export const SSO_COOKIE = "rehook_sso";
/** Only the callback reads it. */
const SSO_COOKIE_PATH = "/auth/oidc";
/** Where the provider sends the browser back, on the dashboard origin it started from (register it at the provider). */
export const SSO_CALLBACK_PATH = "/auth/oidc/callback";
/** A sign-in not finished within this long starts again (the provider's login page included). */
export const SSO_PENDING_SECONDS = 600;

type SsoContext = Pick<ServiceContext, "sso" | "sessions" | "now">;

/** What the login page offers: the SSO button's name, and whether the password form is on. */
export function signInOptions(ctx: Pick<ServiceContext, "sso" | "passwordLogin">): { sso: { name: string } | null; passwordLogin: boolean } {
  return { sso: ctx.sso ? { name: ctx.sso.config.name } : null, passwordLogin: ctx.passwordLogin !== false };
}

function configured(ctx: Pick<ServiceContext, "sso">): NonNullable<ServiceContext["sso"]> {
  if (!ctx.sso) throw new UserError("not_found", "Single sign-on is not set up on this server (OIDC_ISSUER is unset).");
  return ctx.sso;
}

interface PendingCookie extends PendingSignIn {
  next: string;
  /** When the sign-in started (ms), by the services' clock. */
  at: number;
}

// Lax: the provider's redirect back is a top-level GET from another site, which Lax lets through.
const pendingCookie = (ctx: Pick<ServiceContext, "sessions">, value: string, maxAgeSeconds: number) =>
  dashboardCookie(ctx, { name: SSO_COOKIE, value, path: SSO_COOKIE_PATH, maxAgeSeconds });

/**
 * Starts a sign-in: where to send the browser (the provider's authorization URL) and the
 * cookie that binds the sign-in to this browser. The state, nonce and PKCE verifier live in
 * that cookie only: a callback opened in any other browser has none, and fails.
 */
export async function startSsoSignIn(ctx: SsoContext, input: { next: string | null; dashboardOrigin: string }): Promise<{ redirectTo: string; cookie: string }> {
  const { provider } = configured(ctx);
  let request: Awaited<ReturnType<typeof provider.authorizationRequest>>;
  try {
    request = await provider.authorizationRequest(`${input.dashboardOrigin}${SSO_CALLBACK_PATH}`);
  } catch (error) {
    if (error instanceof OpenIdSignInError) throw new UserError("unavailable", "The identity provider could not be reached. Try again in a moment.");
    throw error;
  }
  const pending: PendingCookie = { ...request.pending, next: safeRedirectPath(input.next), at: (ctx.now ?? Date.now)() };
  const value = Buffer.from(JSON.stringify(pending)).toString("base64url");
  return { redirectTo: request.url, cookie: pendingCookie(ctx, value, SSO_PENDING_SECONDS) };
}

/** The cookie that ends a pending sign-in (sent with every callback answer, good or bad). */
export function clearedSsoCookie(ctx: Pick<ServiceContext, "sessions">): string {
  return pendingCookie(ctx, "", 0);
}

function pendingFrom(cookieHeader: string | null, now: number, dashboardOrigin: string): PendingCookie | null {
  const raw = cookieValue(cookieHeader, SSO_COOKIE);
  if (!raw || raw.length > 2048) return null;
  try {
    const parsed = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<PendingCookie>;
    const { redirectUri, state, nonce, codeVerifier, next, at } = parsed;
    const strings = [redirectUri, state, nonce, codeVerifier, next];
    if (!strings.every((value) => typeof value === "string") || typeof at !== "number") return null;
    if (now - at > SSO_PENDING_SECONDS * 1000 || at - now > SSO_PENDING_SECONDS * 1000) return null;
    // Back where it started: the callback on the origin it was started from.
    if (new URL(redirectUri!).origin !== dashboardOrigin || new URL(redirectUri!).pathname !== SSO_CALLBACK_PATH) return null;
    return { redirectUri: redirectUri!, state: state!, nonce: nonce!, codeVerifier: codeVerifier!, next: safeRedirectPath(next!), at };
  } catch {
    return null;
  }
}

export type SsoOutcome = { ok: true; signedIn: SignedIn; next: string } | { ok: false; failure: SsoFailure };

/**
 * Finishes a sign-in at the callback: the browser's cookie must hold the state the provider
 * sent back, the ID token must carry its nonce and a verified email, and the email's domain
 * must be allowed. The account is the one linked to the provider's subject, else the one
 * with that email (linked now), else a new one where sign-up allows it (SIGNUP=open, or
 * OIDC_ALLOWED_DOMAINS lists the domain). Failures count against the client's address in
 * the login throttle, and every outcome is in the audit log.
 */
export async function finishSsoSignIn(
  ctx: Pick<ServiceContext, "sso" | "sessions" | "now" | "orm" | "throttles" | "signup" | "logger">,
  input: { query: string; dashboardOrigin: string; cookieHeader: string | null; clientAddress: string | null; requestId?: string | null },
): Promise<SsoOutcome> {
  const { provider, config } = configured(ctx);
  // Throttled first: a refused callback is neither checked nor written down (an entry per
  // refusal would let anyone make the server write without limit).
  const attempt = ctx.throttles.login.beginFromAddress(input.clientAddress);
  if (!attempt.allowed) return { ok: false, failure: "throttled" };
  const origin = originOf(input);
  const failed = async (failure: SsoFailure, reason: string, known: { userId?: string | null; email?: string | null } = {}): Promise<SsoOutcome> => {
    await auditSignIn(ctx, "user.sign_in_failed", { userId: known.userId ?? null, email: known.email ?? "(unknown)", origin, reason, method: "sso" });
    return { ok: false, failure };
  };
  const pending = pendingFrom(input.cookieHeader, (ctx.now ?? Date.now)(), input.dashboardOrigin);
  // No sign-in started in this browser, or one that has expired: a forged or replayed callback.
  if (!pending) return failed("expired", "the callback names no sign-in started in this browser, or one that has expired");

  let identity: VerifiedIdentity;
  try {
    identity = await provider.verify(input.query, pending);
  } catch (error) {
    if (!(error instanceof OpenIdSignInError)) {
      attempt.abandoned();
      throw error;
    }
    if (error.kind === "unreachable") attempt.abandoned(); // the provider's trouble, not the client's
    return failed(error.kind === "unreachable" ? "unreachable" : "provider", error.reason);
  }
  const email = identity.email;
  if (!email || !identity.emailVerified) return failed("unverified_email", email ? "the provider has not verified the email" : "the ID token has no email", { email });
  if (!ssoDomainAllowed(email, config.allowedDomains)) return failed("domain", "the email's domain is not in OIDC_ALLOWED_DOMAINS", { email });

  const mayCreate = signupMode(ctx) === "open" || config.allowedDomains.length > 0;
  let account: { id: string; email: string } | null;
  try {
    account = await ctx.orm.em.fork().transactional((em) => accountFor(em, identity, email, mayCreate ? config : null, origin, ctx.logger));
  } catch (error) {
    attempt.abandoned();
    throw duplicateEmailAsConflict(error, email);
  }
  if (!account) return failed("no_account", "no account has this email, and sign-up is closed to it", { email });
  attempt.succeeded();
  await auditSignIn(ctx, "user.sign_in", { userId: account.id, email: account.email, origin, method: "sso" });
  const user = { id: account.id, email: account.email };
  return { ok: true, signedIn: { user, cookie: await ctx.sessions.create(user.id) }, next: pending.next };
}

/**
 * The account the identity signs in as, on `em`'s transaction: linked before, linked now by
 * its verified email, or created (when `creating` is given) and added to the default team.
 */
async function accountFor(
  em: EntityManager,
  identity: VerifiedIdentity,
  email: string,
  creating: SsoConfig | null,
  origin: AuditOrigin,
  logger: Logger | undefined,
): Promise<{ id: string; email: string } | null> {
  const linked = await findUserByIdentity(em, identity.issuer, identity.subject);
  if (linked) return linked;
  const link = (userId: string) => linkIdentity(em, { issuer: identity.issuer, subject: identity.subject, userId, email });
  const existing = await findUserByEmail(em, email);
  if (existing) {
    await link(existing.id);
    // From now on the provider opens this account: its teams' admins see when that began.
    await recordAccountAudit(em, {
      action: "user.link_identity",
      userId: existing.id,
      email: existing.email,
      teamIds: (await teamsOfUser(em, existing.id)).map((team) => team.id),
      changes: { issuer: identity.issuer },
      origin,
    });
    return existing;
  }
  if (!creating) return null;
  const created = await insertAccount(em, { email, passwordHash: null }, { via: "sso", origin });
  await link(created.id);
  // Checked at start too; again here, since the team may have been deleted and its slug taken by anyone since.
  const team = creating.defaultTeam ? await operatorTeamBySlug(em, creating.defaultTeam) : null;
  if (creating.defaultTeam && !team) {
    // The account is still made (the user did nothing wrong); the operator must hear that it joined no team.
    logger?.warn("OIDC_DEFAULT_TEAM names no team an operator made: the new account joined no team", { OIDC_DEFAULT_TEAM: creating.defaultTeam, user: created.id });
  }
  if (team) {
    await addTeamMember(em, team.id, created.id, creating.defaultRole);
    await recordAudit(em, undefined, {
      teamId: team.id,
      action: "member.add",
      target: { type: "member", id: created.id, name: email },
      changes: { role: creating.defaultRole, via: "single sign-on (OIDC_DEFAULT_TEAM)" },
    });
  }
  return created;
}
