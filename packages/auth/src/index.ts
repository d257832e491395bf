export { configurePasswordHashing, DEFAULT_HASH_CONCURRENCY, DEFAULT_HASH_QUEUE, hashPassword, passwordHashesRunning, verifyPassword } from "./passwords.js";
export { createSessionManager, type SessionCookie, type SessionManager, type SessionUser } from "./sessions.js";
export { MikroOrmSessionAdapter, sessionIdDigest } from "./lucia-adapter.js";
export { apiKeyDigest, isWellFormedApiKey, issueApiKey, type IssuedApiKey } from "./api-keys.js";
export { AttemptLimiter, type AttemptLimiterOptions, type AttemptVerdict } from "./attempt-limiter.js";
export { DEFAULT_LOGIN_LIMITS, LoginThrottle, type LoginLimits, type LoginVerdict } from "./login-throttle.js";
export { inviteTokenDigest, isWellFormedInviteToken, issueInviteToken } from "./invite-tokens.js";
export { isEntraIssuer, OpenIdProvider, OpenIdSignInError, verifiedEmail, type OpenIdSettings, type PendingSignIn, type VerifiedIdentity } from "./openid-provider.js";
