export { hashPassword, verifyPassword } from "./passwords.js";
export { createSessionManager, type SessionCookie, type SessionManager, type SessionUser } from "./sessions.js";
export { MikroOrmSessionAdapter, sessionIdDigest } from "./lucia-adapter.js";
export { apiKeyDigest, isWellFormedApiKey, issueApiKey, type IssuedApiKey } from "./api-keys.js";
export { AttemptLimiter, type AttemptLimiterOptions, type AttemptVerdict } from "./attempt-limiter.js";
