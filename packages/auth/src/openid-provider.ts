import * as oidc from "openid-client";

export interface OpenIdSettings {
  /** OIDC_ISSUER: discovery reads <issuer>/.well-known/openid-configuration. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Each request to the provider (discovery, the token exchange, its keys) fails after this long. */
  timeoutMs?: number;
  /** The clock ID tokens are checked against (tests move it; unset: Date.now). */
  now?: () => number;
}

/** What the browser must bring back for the callback to be accepted: kept in its cookie only. */
export interface PendingSignIn {
  /** Where the provider sends the browser back (registered at the provider). */
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Who the provider says signed in, once the ID token checked out. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

/** The provider could not be reached, or its answer did not check out: `reason` says which check (for the log and the audit entry). */
export class OpenIdSignInError extends Error {
  constructor(
    readonly kind: "unreachable" | "refused" | "invalid",
    readonly reason: string,
  ) {
    super(reason);
    this.name = "OpenIdSignInError";
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
const SCOPE = "openid email profile";

/** A plain-http issuer is allowed on loopback only (a provider on the same machine; the tests). */
function loopbackHttp(issuer: URL): boolean {
  return issuer.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(issuer.hostname);
}

/**
 * The authorization code flow with PKCE, state and nonce against one OpenID provider, by
 * openid-client (which validates the ID token: signature, issuer, audience, expiry, nonce).
 * Discovery runs at the first sign-in, not at start (a provider that is down must not keep
 * Rehook from starting), and is kept once it succeeded.
 */
export class OpenIdProvider {
  private discovered: Promise<oidc.ServerMetadata> | undefined;
  private readonly issuer: URL;

  constructor(private readonly settings: OpenIdSettings) {
    this.issuer = new URL(settings.issuer);
  }

  /** Where to send the browser, and what it must bring back to `redirectUri`. */
  async authorizationRequest(redirectUri: string): Promise<{ url: string; pending: PendingSignIn }> {
    const config = await this.configuration();
    const pending: PendingSignIn = { redirectUri, state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: SCOPE,
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: "S256",
    });
    return { url: url.href, pending };
  }

  /** Exchanges the callback's code and checks the ID token against what the browser brought back. */
  async verify(callbackQuery: string, pending: PendingSignIn): Promise<VerifiedIdentity> {
    const config = await this.configuration();
    const callback = new URL(pending.redirectUri);
    callback.search = callbackQuery;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new OpenIdSignInError("invalid", "the provider answered without an ID token");
      // A conforming provider may keep scope claims for the userinfo endpoint (its subject must match the ID token's).
      const source: Record<string, unknown> = claims.email === undefined ? await oidc.fetchUserInfo(config, tokens.access_token, claims.sub) : claims;
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email: typeof source.email === "string" ? source.email.toLowerCase() : null,
        emailVerified: verifiedEmail(source, claims.iss),
      };
    } catch (error) {
      throw classify(error);
    }
  }

  /** A configuration per use: the clock skew follows the injectable clock. */
  private async configuration(): Promise<oidc.Configuration> {
    const metadata = await this.serverMetadata();
    const now = this.settings.now;
    const config = new oidc.Configuration(metadata, this.settings.clientId, {
      client_secret: this.settings.clientSecret,
      ...(now ? { [oidc.clockSkew]: Math.round((now() - Date.now()) / 1000) } : {}),
    });
    config.timeout = Math.ceil((this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000);
    if (loopbackHttp(this.issuer)) oidc.allowInsecureRequests(config);
    return config;
  }

  private serverMetadata(): Promise<oidc.ServerMetadata> {
    this.discovered ??= oidc
      .discovery(this.issuer, this.settings.clientId, this.settings.clientSecret, undefined, {
        timeout: Math.ceil((this.settings.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000),
        ...(loopbackHttp(this.issuer) ? { execute: [oidc.allowInsecureRequests] } : {}),
      })
      .then((config) => config.serverMetadata())
      .catch((error: unknown) => {
        this.discovered = undefined; // tried again at the next sign-in
        throw new OpenIdSignInError("unreachable", `discovery at ${this.issuer.href} failed: ${messageOf(error)}`);
      });
    return this.discovered;
  }
}

/**
 * The hosts of Microsoft Entra ID's v2.0 endpoint: the global cloud, US Government and China
 * (21Vianet, both of its hosts). An Entra issuer is exactly `https://<host>/<tenant id>/v2.0`
 * with the tenant as a GUID; `common`, `organizations` and `consumers` have no fixed issuer,
 * and Azure AD B2C (b2clogin.com) sends no xms_edov.
 */
const ENTRA_HOSTS = ["login.microsoftonline.com", "login.microsoftonline.us", "login.chinacloudapi.cn", "login.partner.microsoftonline.cn"];
const ENTRA_ISSUER = new RegExp(`^https://(${ENTRA_HOSTS.map((host) => host.replaceAll(".", "\\.")).join("|")})/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/v2\\.0$`);

/** Whether an ID token's `iss` is a Microsoft Entra ID tenant's (the only issuer whose xms_edov means anything). */
export function isEntraIssuer(issuer: string): boolean {
  return ENTRA_ISSUER.test(issuer);
}

/**
 * Whether the provider vouches for the email: email_verified (some providers send "true" as a
 * string), or, from a Microsoft Entra issuer only, its xms_edov (the email's domain is verified
 * by its owner), since Entra sends no email_verified. Any other provider may put any claim it
 * likes in a token, so xms_edov from elsewhere proves nothing. Anything else is unverified.
 */
export function verifiedEmail(claims: Record<string, unknown>, issuer: string): boolean {
  const truthy = (value: unknown) => value === true || value === "true" || value === "1" || value === 1;
  return truthy(claims.email_verified) || (isEntraIssuer(issuer) && truthy(claims.xms_edov));
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The provider's own refusal (the user cancelled, an OAuth error) versus a check that failed. */
function classify(error: unknown): OpenIdSignInError {
  if (error instanceof OpenIdSignInError) return error;
  if (error instanceof oidc.AuthorizationResponseError) return new OpenIdSignInError("refused", `the provider refused: ${error.error}${error.error_description ? ` (${error.error_description})` : ""}`);
  if (error instanceof oidc.ResponseBodyError) return new OpenIdSignInError("refused", `the token endpoint refused: ${error.error}${error.error_description ? ` (${error.error_description})` : ""}`);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : "";
  if (error instanceof TypeError || (error instanceof Error && error.name === "TimeoutError")) return new OpenIdSignInError("unreachable", `the provider could not be reached: ${messageOf(error)}${cause}`);
  // openid-client's message names the kind of check; its cause says which claim or parameter.
  return new OpenIdSignInError("invalid", `${messageOf(error)}${cause}`);
}
