import { z } from "zod";
import { SIGNUP_MODES, type SignupMode } from "./signup.js";
import { ROLES } from "./roles.js";
import type { SsoConfig } from "./sso.js";
import { OPEN_UPLOAD_BYTES, type BodyBudgetLimits, type MinUploadRate } from "./body-budget.js";
import { isLoopbackHost } from "./addresses.js";
import { DEFAULT_ALERT_EMAILS_PER_HOUR, DEFAULT_ALERT_EMAILS_PER_TEAM_PER_HOUR } from "./alerts/pacing.js";

const MIB = 1024 * 1024;

const booleanString = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

/**
 * A whole number as an environment variable must spell it: decimal digits only. Number()
 * would read " " as 0 (RETENTION_DAYS=" " meant keep for ever), "0x10" as 16, and take
 * "1e3", "+5" and "5.0" too; a typo should stop the start, not change the setting.
 */
export function parseDecimalInteger(raw: string): number | undefined {
  if (!/^[0-9]+$/.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** An integer setting from `min` to `max`, read by parseDecimalInteger. */
function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER) {
  const range = max === Number.MAX_SAFE_INTEGER ? `of ${min} or more` : `from ${min} to ${max}`;
  return z.string().transform((raw, context) => {
    const value = parseDecimalInteger(raw);
    if (value !== undefined && value >= min && value <= max) return value;
    context.addIssue({ code: "custom", message: `${JSON.stringify(raw)} is not a whole number ${range} (decimal digits only: no spaces, sign, decimal point, exponent or 0x)` });
    return z.NEVER;
  });
}

const port = wholeNumber(0, 65535);
const positiveInt = wholeNumber(1);

export const MAX_WORKERS = 64;
const WORKERS_RULE = `must be an integer from 1 to ${MAX_WORKERS}, or auto`;

/** WORKERS and `rehook start --workers`: a count of capture processes, or "auto" (one per core). */
export function parseWorkers(raw: string): number | "auto" | undefined {
  if (raw === "auto") return "auto";
  const count = parseDecimalInteger(raw);
  return count !== undefined && count >= 1 && count <= MAX_WORKERS ? count : undefined;
}

/** The message for a WORKERS value parseWorkers refuses. */
export const workersRule = WORKERS_RULE;

/**
 * Every environment variable Rehook reads, with its default.
 * The table in docs/configuration.md lists the same set.
 */
export const environmentSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  CAPTURE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  CAPTURE_ON_DASHBOARD_HOST: booleanString.default(true),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_POOL_SIZE: wholeNumber(1, 200).default(10),
  DATABASE_WAIT_MS: wholeNumber(0, 600_000).default(60_000),
  REHOOK_DATA_DIR: z.string().min(1).optional(),
  MAX_PAYLOAD_BYTES: positiveInt.default(10 * MIB),
  MAX_BUFFERED_BODY_BYTES: positiveInt.optional(),
  DASHBOARD_BUFFERED_BODY_BYTES: positiveInt.optional(),
  CAPTURE_BUFFERED_BODY_BYTES_PER_ADDRESS: positiveInt.optional(),
  CAPTURE_BUFFERED_BODY_BYTES_PER_ENDPOINT: positiveInt.optional(),
  DASHBOARD_BUFFERED_BODY_BYTES_PER_ADDRESS: positiveInt.optional(),
  DASHBOARD_ANONYMOUS_BUFFERED_BODY_BYTES: positiveInt.optional(),
  MIN_BODY_BYTES_PER_SECOND: wholeNumber(0, 1024 * MIB).default(1024),
  BODY_RATE_GRACE_MS: wholeNumber(100, 600_000).default(10_000),
  MAX_HEADER_COUNT: wholeNumber(1, 10_000).default(500),
  TRUST_PROXY: booleanString.default(false),
  TRUST_PROXY_HOPS: wholeNumber(1, 10).default(1),
  ALLOWED_ORIGINS: z.string().optional(),
  ALLOW_PRIVATE_DESTINATIONS: booleanString.default(false),
  FORWARD_TIMEOUT_MS: wholeNumber(1, 300_000).default(30_000),
  MAX_IN_FLIGHT_PER_DESTINATION: wholeNumber(1, 2_000).optional(),
  /** The name before routing (one destination per endpoint); MAX_IN_FLIGHT_PER_DESTINATION wins when both are set. */
  MAX_IN_FLIGHT_PER_ENDPOINT: wholeNumber(1, 2_000).optional(),
  RETENTION_DAYS: wholeNumber(0, 3650).default(30),
  AUDIT_RETENTION_DAYS: wholeNumber(0, 36_500).default(365),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  LOG_FORMAT: z.enum(["pretty", "json"]).default("pretty"),
  WORKERS: z
    .string()
    .refine((value) => parseWorkers(value) !== undefined, WORKERS_RULE)
    .transform((value) => parseWorkers(value)!)
    .default(1),
  SHUTDOWN_DRAIN_MS: wholeNumber(0, 120_000).default(5_000),
  STREAM_RESTART_RETRY_MS: wholeNumber(1_000, 600_000).default(30_000),
  CHAT_HOOKS_BASE: z.url({ protocol: /^https?$/ }).default("https://hooks.slack.com"),
  PUBLIC_API_ENABLED: booleanString.default(true),
  API_RATE_LIMIT_PER_MINUTE: wholeNumber(1, 1_000_000).default(600),
  SIGNUPS_PER_ADDRESS_PER_HOUR: wholeNumber(1, 1_000_000).default(20),
  PASSWORD_HASH_CONCURRENCY: wholeNumber(1, 64).optional(),
  SIGNUP: z.enum(SIGNUP_MODES, { message: `must be one of ${SIGNUP_MODES.join(", ")}` }).default("open"),
  PASSWORD_LOGIN: booleanString.default(true),
  SMTP_URL: z
    .string()
    .max(2048)
    .refine((raw) => URL.canParse(raw) && /^smtps?:$/.test(new URL(raw).protocol), "must be an smtp:// or smtps:// URL (smtp://user:password@mail.example.com:587)")
    .optional(),
  SMTP_FROM: z.string().max(320).optional(),
  SMTP_ALLOW_PLAINTEXT_AUTH: booleanString.default(false),
  ALERT_EMAILS_PER_TEAM_PER_HOUR: wholeNumber(1, 100_000).default(DEFAULT_ALERT_EMAILS_PER_TEAM_PER_HOUR),
  ALERT_EMAILS_PER_HOUR: wholeNumber(1, 1_000_000).default(DEFAULT_ALERT_EMAILS_PER_HOUR),
  OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_CLIENT_ID: z.string().max(1024).optional(),
  OIDC_CLIENT_SECRET: z.string().max(4096).optional(),
  OIDC_NAME: z.string().max(60).default("SSO"),
  OIDC_ALLOWED_DOMAINS: z
    .string()
    .transform((raw) => raw.split(",").map((domain) => domain.trim().toLowerCase()).filter(Boolean))
    .refine((domains) => domains.every((domain) => /^[a-z0-9.-]+\.[a-z0-9-]+$/.test(domain)), "must be comma-separated domain names (example.com,example.org)")
    .optional(),
  OIDC_DEFAULT_TEAM: z.string().max(200).optional(),
  OIDC_DEFAULT_ROLE: z.enum(ROLES.filter((role) => role !== "owner") as ["viewer", "developer", "admin"], { message: "must be one of viewer, developer, admin" }).optional(),
  METRICS_ENABLED: booleanString.default(true),
  METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters (openssl rand -hex 32 makes one)")
    .max(1024)
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces (it is sent as a bearer token)")
    .optional(),
  METRICS_PORT: port.optional(),
  METRICS_WORKERS_WAIT_MS: wholeNumber(100, 60_000).default(2_000),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  /** Where capture URLs are built from (CAPTURE_BASE_URL; unset: baseUrl). */
  captureBaseUrl: string;
  /**
   * CAPTURE_ON_DASHBOARD_HOST: with CAPTURE_BASE_URL set, capture URLs still answer on the
   * dashboard's hosts (for senders set up before it); false: 421 there. Always true without it.
   */
  captureOnDashboardHost: boolean;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** How long start and the CLI's commands wait for an external database that is down, starting or stopping (0: one try). */
  databaseWaitMs: number;
  dataDir: string;
  maxPayloadBytes: number;
  /** Request bytes all bodies being read may hold in memory at once in this process; past it, 503. */
  maxBufferedBodyBytes: number;
  /** How MAX_BUFFERED_BODY_BYTES is shared: captures and the dashboard's slice, each capped per address (and per endpoint). */
  bodyBudget: BodyBudgetLimits;
  /** The least rate an upload must keep up once its grace is over (MIN_BODY_BYTES_PER_SECOND, BODY_RATE_GRACE_MS). */
  minUploadRate: MinUploadRate;
  maxHeaderCount: number;
  /** Proxies in front of Rehook whose X-Forwarded-For entries are believed (0: none, TRUST_PROXY=false). */
  trustedProxyHops: number;
  /** Origins the dashboard answers at: BASE_URL's, then ALLOWED_ORIGINS. */
  dashboardOrigins: string[];
  /** BASE_URL was not set: loopback origins on the port actually listened on are ours too (local use). */
  baseUrlIsDefault: boolean;
  /** Opens loopback and private ranges to destinations (local development, private networks). */
  allowPrivateDestinations: boolean;
  /** Total time a forward or replay may take before it counts as failed. */
  forwardTimeoutMs: number;
  /** Forwards to one destination running at once: a slow or hanging destination cannot take the others' capacity. */
  maxInFlightPerDestination: number;
  /** Days events are kept unless their endpoint says otherwise (0: for ever). */
  retentionDays: number;
  /** AUDIT_RETENTION_DAYS: how long audit entries are kept (0: for ever). */
  auditRetentionDays: number;
  logLevel: Environment["LOG_LEVEL"];
  /** pretty: one text line per record (terminals); json: one JSON object per line (log collectors). */
  logFormat: Environment["LOG_FORMAT"];
  /** Capture processes `rehook start` runs on PORT (node:cluster); "auto": one per core. */
  workers: number | "auto";
  /** On SIGTERM, how long /readyz answers 503 while requests are still served, before the server closes. */
  shutdownDrainMs: number;
  /** How long after the drain a stream ended by shutdown tells its client to reconnect (its `retry:` is the drain plus this). */
  streamRestartRetryMs: number;
  /** Chat incoming-webhook URLs must start with this. */
  chatHooksBase: string;
  /** Cookies get the Secure flag when the dashboard is served over https. */
  secureCookies: boolean;
  /** Serve /api/v1 (preview); false answers 404 there. */
  publicApiEnabled: boolean;
  /** Requests per API key per minute on /api/v1. */
  apiRateLimitPerMinute: number;
  /** Sign-ups allowed from one client address per hour. */
  signupsPerAddressPerHour: number;
  /** Password hashes run at once (unset: half the cores). */
  passwordHashConcurrency: number | undefined;
  /** Who may sign up on the dashboard: anyone, nobody (the CLI creates accounts) or holders of an invite. */
  signup: SignupMode;
  /** PASSWORD_LOGIN: the dashboard's password form (false: single sign-on is the only way in). */
  passwordLogin: boolean;
  /** OpenID Connect sign-in (OIDC_*), or null when OIDC_ISSUER is unset. */
  sso: SsoConfig | null;
  /**
   * Where email alerts are sent from (SMTP_URL, SMTP_FROM), or null: email alert rules cannot
   * be saved. `allowPlaintextAuth` (SMTP_ALLOW_PLAINTEXT_AUTH, a relay on this machine only)
   * lets SMTP_URL's credentials go without TLS.
   */
  smtp: SmtpConfig | null;
  /** Emails one team's alert rules may send in any hour, alerts and tests together (ALERT_EMAILS_PER_TEAM_PER_HOUR). */
  alertEmailsPerTeamPerHour: number;
  /** Emails the whole server's alert rules may send in any hour, every team together (ALERT_EMAILS_PER_HOUR). */
  alertEmailsPerHour: number;
  /** Serve GET /metrics (Prometheus text format) and count what it reports. */
  metricsEnabled: boolean;
  /** Scrapes must send Authorization: Bearer <token> (unset: no authentication). */
  metricsToken: string | undefined;
  /** Serve /metrics on this port only (bound to HOST), not on PORT (unset: on PORT). */
  metricsPort: number | undefined;
  /** With `--workers N`, how long a scrape waits for every worker's samples before a late one counts with its last. */
  metricsWorkersWaitMs: number;
}

/** OIDC_*: all three of issuer, client id and secret, or none of them; the rest only with them. */
function ssoConfig(e: Environment): SsoConfig | null {
  const required = { OIDC_ISSUER: e.OIDC_ISSUER, OIDC_CLIENT_ID: e.OIDC_CLIENT_ID, OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET };
  const missing = Object.entries(required).filter(([, value]) => value === undefined).map(([name]) => name);
  if (missing.length === 3) {
    const stray = (["OIDC_ALLOWED_DOMAINS", "OIDC_DEFAULT_TEAM", "OIDC_DEFAULT_ROLE"] as const).find((name) => e[name] !== undefined);
    if (stray) throw new ConfigError(`invalid ${stray}: it needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET`);
    if (!e.PASSWORD_LOGIN) throw new ConfigError("invalid PASSWORD_LOGIN: false leaves no way to sign in without single sign-on; set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET");
    return null;
  }
  if (missing.length > 0) throw new ConfigError(`invalid ${missing[0]}: single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together`);
  if (e.OIDC_DEFAULT_ROLE !== undefined && e.OIDC_DEFAULT_TEAM === undefined) throw new ConfigError("invalid OIDC_DEFAULT_ROLE: it needs OIDC_DEFAULT_TEAM (the team new accounts join)");
  return {
    issuer: e.OIDC_ISSUER!,
    clientId: e.OIDC_CLIENT_ID!,
    clientSecret: e.OIDC_CLIENT_SECRET!,
    name: e.OIDC_NAME,
    allowedDomains: e.OIDC_ALLOWED_DOMAINS ?? [],
    defaultTeam: e.OIDC_DEFAULT_TEAM ?? null,
    defaultRole: e.OIDC_DEFAULT_ROLE ?? "viewer",
  };
}

/** ALLOWED_ORIGINS: comma-separated http(s) origins (scheme://host[:port], nothing after). */
function allowedOrigins(raw: string | undefined): string[] {
  if (!raw) return [];
  return raw
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      let url: URL;
      try {
        url = new URL(item);
      } catch {
        throw new ConfigError(`invalid ALLOWED_ORIGINS: ${item} is not an origin like https://rehook.example.com`);
      }
      if ((url.protocol !== "http:" && url.protocol !== "https:") || url.origin !== item.replace(/\/$/, "")) {
        throw new ConfigError(`invalid ALLOWED_ORIGINS: ${item} is not an origin like https://rehook.example.com`);
      }
      return url.origin;
    });
}

const LOOPBACK_HOSTNAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * CAPTURE_BASE_URL without a trailing slash, once it is known to name another host than the
 * dashboard's: browsers send a host's cookies to every port of it, so a capture URL on the
 * dashboard's host (another port included) would still receive the session cookie.
 */
function separateCaptureBase(raw: string, dashboardOrigins: readonly string[], loopbackDashboard: boolean): string {
  const url = new URL(raw);
  if (url.search || url.hash || url.username || url.password) {
    throw new ConfigError(`invalid CAPTURE_BASE_URL: ${raw} must be a plain http(s) address like https://hooks.example.com, without query, fragment or credentials`);
  }
  const dashboardHosts = new Set(dashboardOrigins.map((origin) => new URL(origin).hostname));
  if (loopbackDashboard) for (const host of LOOPBACK_HOSTNAMES) dashboardHosts.add(host);
  if (dashboardHosts.has(url.hostname)) {
    throw new ConfigError(
      `invalid CAPTURE_BASE_URL: ${url.hostname} is a host the dashboard answers at (BASE_URL, ALLOWED_ORIGINS${loopbackDashboard ? " or loopback, as BASE_URL is unset" : ""}); ` +
        "give capture URLs a host of their own, like hooks.example.com, or leave CAPTURE_BASE_URL unset",
    );
  }
  return raw.replace(/\/+$/, "");
}

/** MAX_BUFFERED_BODY_BYTES' least default. */
export const DEFAULT_BUFFERED_BODY_BYTES = 256 * MIB;

/** MAX_BUFFERED_BODY_BYTES' default: 256 MiB, or room for 4 bodies of MAX_PAYLOAD_BYTES if that is more. */
export function defaultBufferedBodyBytes(maxPayloadBytes: number): number {
  return Math.max(DEFAULT_BUFFERED_BODY_BYTES, 4 * maxPayloadBytes);
}

// The API's and the dashboard's own body caps (/api/v1, /trpc, the replay route) are 1 MiB.
const LARGEST_DASHBOARD_BODY_BYTES = MIB;

/** DASHBOARD_BUFFERED_BODY_BYTES' default: a sixteenth of the budget, from 1 MiB to 16 MiB. */
export function defaultDashboardBodyBytes(totalBytes: number): number {
  return Math.min(16 * MIB, Math.max(LARGEST_DASHBOARD_BODY_BYTES, Math.floor(totalBytes / 16)));
}

/** A per-address or per-endpoint cap: `share` of its slice by default, and between the largest body and the slice. */
function sliceCap(name: string, raw: number | undefined, sliceBytes: number, share: number, largestBody: number): number {
  if (raw === undefined) return Math.min(sliceBytes, Math.max(largestBody, Math.floor(sliceBytes * share)));
  if (raw < largestBody) throw new ConfigError(`invalid ${name}: ${raw} is less than the largest body it must take (${largestBody} bytes); give at least that`);
  if (raw > sliceBytes) throw new ConfigError(`invalid ${name}: ${raw} is more than its whole slice of MAX_BUFFERED_BODY_BYTES (${sliceBytes} bytes); give at most that`);
  return raw;
}

/**
 * MAX_BUFFERED_BODY_BYTES and how it is shared: the dashboard's slice (DASHBOARD_BUFFERED_BODY_BYTES)
 * holds at least one body of the largest size its routes take (1 MiB), the captures' slice
 * (the rest) one of MAX_PAYLOAD_BYTES; one address may hold a quarter of a slice, an IPv6 /48
 * twice that, one endpoint half of the captures' slice, and anonymous requests half of the
 * dashboard's by default.
 */
function bodyBudgetLimits(e: Environment): { total: number; limits: BodyBudgetLimits } {
  const total = e.MAX_BUFFERED_BODY_BYTES ?? defaultBufferedBodyBytes(e.MAX_PAYLOAD_BYTES);
  const dashboard = e.DASHBOARD_BUFFERED_BODY_BYTES ?? defaultDashboardBodyBytes(total);
  if (dashboard < LARGEST_DASHBOARD_BODY_BYTES) {
    throw new ConfigError(`invalid DASHBOARD_BUFFERED_BODY_BYTES: ${dashboard} is less than the largest body the dashboard and the API take (${LARGEST_DASHBOARD_BODY_BYTES} bytes); give at least that`);
  }
  const capture = total - dashboard;
  if (capture < Math.max(e.MAX_PAYLOAD_BYTES, OPEN_UPLOAD_BYTES)) {
    throw new ConfigError(
      `invalid MAX_BUFFERED_BODY_BYTES: ${total} leaves ${Math.max(0, capture)} bytes for captures once the dashboard's ${dashboard} are kept (DASHBOARD_BUFFERED_BODY_BYTES), ` +
        `less than the largest body a capture URL accepts (MAX_PAYLOAD_BYTES, ${e.MAX_PAYLOAD_BYTES}); give at least ${e.MAX_PAYLOAD_BYTES + dashboard}`,
    );
  }
  // An open upload is charged at least OPEN_UPLOAD_BYTES, so a cap below it would take no body at all.
  const largestCapture = Math.max(e.MAX_PAYLOAD_BYTES, OPEN_UPLOAD_BYTES);
  const capturePerAddress = sliceCap("CAPTURE_BUFFERED_BODY_BYTES_PER_ADDRESS", e.CAPTURE_BUFFERED_BODY_BYTES_PER_ADDRESS, capture, 1 / 4, largestCapture);
  const dashboardPerAddress = sliceCap("DASHBOARD_BUFFERED_BODY_BYTES_PER_ADDRESS", e.DASHBOARD_BUFFERED_BODY_BYTES_PER_ADDRESS, dashboard, 1 / 4, LARGEST_DASHBOARD_BODY_BYTES);
  return {
    total,
    limits: {
      capture: {
        bytes: capture,
        perAddress: capturePerAddress,
        perNetwork: networkCap(capturePerAddress, capture),
        perTarget: sliceCap("CAPTURE_BUFFERED_BODY_BYTES_PER_ENDPOINT", e.CAPTURE_BUFFERED_BODY_BYTES_PER_ENDPOINT, capture, 1 / 2, largestCapture),
      },
      dashboard: {
        bytes: dashboard,
        perAddress: dashboardPerAddress,
        perNetwork: networkCap(dashboardPerAddress, dashboard),
        anonymous: sliceCap("DASHBOARD_ANONYMOUS_BUFFERED_BODY_BYTES", e.DASHBOARD_ANONYMOUS_BUFFERED_BODY_BYTES, dashboard, 1 / 2, LARGEST_DASHBOARD_BODY_BYTES),
      },
    },
  };
}

export interface SmtpConfig {
  url: string;
  from: string;
  allowPlaintextAuth: boolean;
}

/**
 * SMTP_URL and its companions. SMTP_ALLOW_PLAINTEXT_AUTH is accepted for a relay on this
 * machine only: there the password never crosses a network, while on any other host (a
 * private network included) whoever is on the path, or answers in the server's place, reads
 * it. A relay elsewhere that needs no password takes a URL without credentials instead.
 */
function smtpConfig(e: Environment, baseUrl: string): SmtpConfig | null {
  if (!e.SMTP_URL) {
    if (e.SMTP_ALLOW_PLAINTEXT_AUTH) throw new ConfigError("invalid SMTP_ALLOW_PLAINTEXT_AUTH: it needs SMTP_URL");
    return null;
  }
  const url = new URL(e.SMTP_URL);
  // nodemailer reads a URL's query as transport options: `?service=AOL` connects to another
  // host than the one checked below, `?service=Maildev` or `?ignoreTLS=true` skips STARTTLS,
  // `?tls.rejectUnauthorized=false` accepts any certificate. Rehook sets every option itself.
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigError(
      `invalid SMTP_URL: it takes no query or fragment (${url.search || url.hash} given): Rehook sets the transport options itself (TLS from smtps:// or required STARTTLS; a private CA via NODE_EXTRA_CA_CERTS)`,
    );
  }
  const host = url.hostname;
  if (e.SMTP_ALLOW_PLAINTEXT_AUTH && !isLoopbackHost(host)) {
    throw new ConfigError(
      `invalid SMTP_ALLOW_PLAINTEXT_AUTH: SMTP_URL's host ${host} is not this machine (localhost, 127.0.0.0/8, ::1), and the password would cross the network in clear text; ` +
        "give the mail server STARTTLS (or use smtps://), or drop the credentials from SMTP_URL if it needs none",
    );
  }
  return { url: e.SMTP_URL, from: e.SMTP_FROM ?? `Rehook <rehook@${new URL(baseUrl).hostname}>`, allowPlaintextAuth: e.SMTP_ALLOW_PLAINTEXT_AUTH };
}

/** An IPv6 /48's cap: twice one address's (a /64), at most the slice. */
function networkCap(perAddress: number, sliceBytes: number): number {
  return Math.min(sliceBytes, 2 * perAddress);
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads configuration from an environment record (pure: the caller passes process.env).
 * `defaultDataDir` is where the embedded database lives when REHOOK_DATA_DIR is unset.
 */
export function loadConfig(env: Record<string, string | undefined>, defaultDataDir: string): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ""));
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`invalid ${issue.path.join(".")}: ${issue.message}`);
  }
  const e = parsed.data;
  const baseUrl = (e.BASE_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, "");
  const dashboardOrigins = [new URL(baseUrl).origin, ...allowedOrigins(e.ALLOWED_ORIGINS)];
  const captureBaseUrl = e.CAPTURE_BASE_URL === undefined ? baseUrl : separateCaptureBase(e.CAPTURE_BASE_URL, dashboardOrigins, e.BASE_URL === undefined);
  if (!e.CAPTURE_ON_DASHBOARD_HOST && e.CAPTURE_BASE_URL === undefined) {
    throw new ConfigError("invalid CAPTURE_ON_DASHBOARD_HOST: false needs CAPTURE_BASE_URL (capture URLs would answer nowhere); set CAPTURE_BASE_URL to their own host, or leave CAPTURE_ON_DASHBOARD_HOST unset");
  }
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError(`invalid METRICS_PORT: it is PORT (${e.PORT}); give the metrics another port, or unset METRICS_PORT to serve /metrics on PORT`);
  }
  const bodies = bodyBudgetLimits(e);
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    captureBaseUrl,
    captureOnDashboardHost: e.CAPTURE_ON_DASHBOARD_HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    databaseWaitMs: e.DATABASE_WAIT_MS,
    dataDir: e.REHOOK_DATA_DIR ?? defaultDataDir,
    maxPayloadBytes: e.MAX_PAYLOAD_BYTES,
    maxBufferedBodyBytes: bodies.total,
    bodyBudget: bodies.limits,
    minUploadRate: { bytesPerSecond: e.MIN_BODY_BYTES_PER_SECOND, graceMs: e.BODY_RATE_GRACE_MS },
    maxHeaderCount: e.MAX_HEADER_COUNT,
    trustedProxyHops: e.TRUST_PROXY ? e.TRUST_PROXY_HOPS : 0,
    dashboardOrigins,
    baseUrlIsDefault: e.BASE_URL === undefined,
    allowPrivateDestinations: e.ALLOW_PRIVATE_DESTINATIONS,
    forwardTimeoutMs: e.FORWARD_TIMEOUT_MS,
    maxInFlightPerDestination: e.MAX_IN_FLIGHT_PER_DESTINATION ?? e.MAX_IN_FLIGHT_PER_ENDPOINT ?? 200,
    retentionDays: e.RETENTION_DAYS,
    auditRetentionDays: e.AUDIT_RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    workers: e.WORKERS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    streamRestartRetryMs: e.STREAM_RESTART_RETRY_MS,
    chatHooksBase: e.CHAT_HOOKS_BASE.replace(/\/+$/, ""),
    secureCookies: (e.BASE_URL ?? "").startsWith("https:"),
    publicApiEnabled: e.PUBLIC_API_ENABLED,
    apiRateLimitPerMinute: e.API_RATE_LIMIT_PER_MINUTE,
    signupsPerAddressPerHour: e.SIGNUPS_PER_ADDRESS_PER_HOUR,
    passwordHashConcurrency: e.PASSWORD_HASH_CONCURRENCY,
    signup: e.SIGNUP,
    passwordLogin: e.PASSWORD_LOGIN,
    sso: ssoConfig(e),
    smtp: smtpConfig(e, baseUrl),
    alertEmailsPerTeamPerHour: e.ALERT_EMAILS_PER_TEAM_PER_HOUR,
    alertEmailsPerHour: e.ALERT_EMAILS_PER_HOUR,
    metricsEnabled: e.METRICS_ENABLED,
    metricsToken: e.METRICS_TOKEN,
    metricsPort: e.METRICS_PORT,
    metricsWorkersWaitMs: e.METRICS_WORKERS_WAIT_MS,
  };
}
