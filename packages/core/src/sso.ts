import type { Role } from "./roles.js";

/** OpenID Connect sign-in as configured (OIDC_*); absent when OIDC_ISSUER is unset. */
export interface SsoConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The login button says "Sign in with <name>" (OIDC_NAME). */
  name: string;
  /** Email domains allowed to sign in this way, lower case (empty: any); a match may also create an account. */
  allowedDomains: string[];
  /** New accounts join this team (its slug) with defaultRole. */
  defaultTeam: string | null;
  defaultRole: Role;
}

/** The domain of an email, lower case ("" when it has none). */
export function emailDomain(email: string): string {
  const at = email.lastIndexOf("@");
  return at < 0 ? "" : email.slice(at + 1).toLowerCase();
}

/** Whether an email may sign in by SSO under OIDC_ALLOWED_DOMAINS (an empty list allows any). */
export function ssoDomainAllowed(email: string, allowedDomains: readonly string[]): boolean {
  return allowedDomains.length === 0 || allowedDomains.includes(emailDomain(email));
}

/**
 * Why a single sign-on did not sign anyone in. The callback redirects to the login page with
 * the code only; the page shows the message for it, so nothing from the query is echoed.
 */
export const SSO_FAILURES = {
  expired: "The sign-in took too long or was started in another browser. Start it again.",
  provider: "The identity provider did not confirm the sign-in. Try again, or ask your administrator.",
  unreachable: "The identity provider could not be reached. Try again in a moment.",
  unverified_email: "Your identity provider has not verified your email address, so it cannot sign you in here.",
  domain: "Your email's domain is not allowed to sign in here. Ask your administrator.",
  no_account: "There is no Rehook account for your email, and this server does not create one at sign-in. Ask an admin for an invite.",
  throttled: "There were too many failed sign-ins from this address. Try again later.",
  // The start was not from our own pages: neither Sec-Fetch-Site nor a same-origin Referer said so.
  foreign_start: "Sign-in could not start from this page. Use the button on this sign-in page.",
} as const;

export type SsoFailure = keyof typeof SSO_FAILURES;

export function isSsoFailure(value: unknown): value is SsoFailure {
  return typeof value === "string" && Object.hasOwn(SSO_FAILURES, value);
}

export const PASSWORD_LOGIN_OFF_MESSAGE = "Password sign-in is turned off on this server. Use single sign-on.";
