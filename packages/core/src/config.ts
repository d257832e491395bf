import { z } from "zod";
import { SIGNUP_MODES, type SignupMode } from "./signup.js";

const MIB = 1024 * 1024;

const booleanString = z
  .enum(["true", "false", "1", "0", "yes", "no"])
  .transform((value) => value === "true" || value === "1" || value === "yes");

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

export const MAX_WORKERS = 64;
const WORKERS_RULE = `must be an integer from 1 to ${MAX_WORKERS}, or auto`;

/** WORKERS and `rehook start --workers`: a count of capture processes, or "auto" (one per core). */
export function parseWorkers(raw: string): number | "auto" | undefined {
  const value = raw.trim();
  if (value === "auto") return "auto";
  if (!/^\d+$/.test(value)) return undefined;
  const count = Number(value);
  return count >= 1 && count <= MAX_WORKERS ? count : undefined;
}

/** The message for a WORKERS value parseWorkers refuses. */
export const workersRule = WORKERS_RULE;

/**
 * Every environment variable Rehook reads, with its default.
 * The README's configuration table lists the same set.
 */
export const environmentSchema = z.object({
  PORT: port.default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL").optional(),
  DATABASE_POOL_SIZE: positiveInt.max(200).default(10),
  REHOOK_DATA_DIR: z.string().min(1).optional(),
  MAX_PAYLOAD_BYTES: positiveInt.default(10 * MIB),
  MAX_HEADER_COUNT: positiveInt.max(10_000).default(500),
  TRUST_PROXY: booleanString.default(false),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  ALLOWED_ORIGINS: z.string().optional(),
  ALLOW_PRIVATE_DESTINATIONS: booleanString.default(false),
  FORWARD_TIMEOUT_MS: positiveInt.max(300_000).default(30_000),
  MAX_IN_FLIGHT_PER_ENDPOINT: positiveInt.max(2_000).default(200),
  RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
  LOG_FORMAT: z.enum(["pretty", "json"]).default("pretty"),
  WORKERS: z
    .string()
    .refine((value) => parseWorkers(value) !== undefined, WORKERS_RULE)
    .transform((value) => parseWorkers(value)!)
    .default(1),
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(120_000).default(5_000),
  CHAT_HOOKS_BASE: z.url({ protocol: /^https?$/ }).default("https://hooks.slack.com"),
  PUBLIC_API_ENABLED: booleanString.default(true),
  API_RATE_LIMIT_PER_MINUTE: positiveInt.max(1_000_000).default(600),
  SIGNUPS_PER_ADDRESS_PER_HOUR: positiveInt.max(1_000_000).default(20),
  PASSWORD_HASH_CONCURRENCY: positiveInt.max(64).optional(),
  SIGNUP: z.enum(SIGNUP_MODES, { message: `must be one of ${SIGNUP_MODES.join(", ")}` }).default("open"),
  METRICS_ENABLED: booleanString.default(true),
  METRICS_TOKEN: z
    .string()
    .min(16, "must be at least 16 characters (openssl rand -hex 32 makes one)")
    .max(1024)
    .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces (it is sent as a bearer token)")
    .optional(),
  METRICS_PORT: port.optional(),
});

export type Environment = z.infer<typeof environmentSchema>;

export interface Config {
  port: number;
  host: string;
  baseUrl: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  dataDir: string;
  maxPayloadBytes: number;
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
  /** Forwards to one endpoint running at once: a slow or hanging destination cannot take the others' capacity. */
  maxInFlightPerEndpoint: number;
  /** Days events are kept unless their endpoint says otherwise (0: for ever). */
  retentionDays: number;
  logLevel: Environment["LOG_LEVEL"];
  /** pretty: one text line per record (terminals); json: one JSON object per line (log collectors). */
  logFormat: Environment["LOG_FORMAT"];
  /** Capture processes `rehook start` runs on PORT (node:cluster); "auto": one per core. */
  workers: number | "auto";
  /** On SIGTERM, how long /readyz answers 503 while requests are still served, before the server closes. */
  shutdownDrainMs: number;
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
  /** Serve GET /metrics (Prometheus text format) and count what it reports. */
  metricsEnabled: boolean;
  /** Scrapes must send Authorization: Bearer <token> (unset: no authentication). */
  metricsToken: string | undefined;
  /** Serve /metrics on this port only (bound to HOST), not on PORT (unset: on PORT). */
  metricsPort: number | undefined;
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
  if (e.METRICS_PORT !== undefined && e.METRICS_PORT !== 0 && e.METRICS_PORT === e.PORT) {
    throw new ConfigError(`invalid METRICS_PORT: it is PORT (${e.PORT}); give the metrics another port, or unset METRICS_PORT to serve /metrics on PORT`);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    baseUrl,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    dataDir: e.REHOOK_DATA_DIR ?? defaultDataDir,
    maxPayloadBytes: e.MAX_PAYLOAD_BYTES,
    maxHeaderCount: e.MAX_HEADER_COUNT,
    trustedProxyHops: e.TRUST_PROXY ? e.TRUST_PROXY_HOPS : 0,
    dashboardOrigins: [new URL(baseUrl).origin, ...allowedOrigins(e.ALLOWED_ORIGINS)],
    baseUrlIsDefault: e.BASE_URL === undefined,
    allowPrivateDestinations: e.ALLOW_PRIVATE_DESTINATIONS,
    forwardTimeoutMs: e.FORWARD_TIMEOUT_MS,
    maxInFlightPerEndpoint: e.MAX_IN_FLIGHT_PER_ENDPOINT,
    retentionDays: e.RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT,
    workers: e.WORKERS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS,
    chatHooksBase: e.CHAT_HOOKS_BASE.replace(/\/+$/, ""),
    secureCookies: (e.BASE_URL ?? "").startsWith("https:"),
    publicApiEnabled: e.PUBLIC_API_ENABLED,
    apiRateLimitPerMinute: e.API_RATE_LIMIT_PER_MINUTE,
    signupsPerAddressPerHour: e.SIGNUPS_PER_ADDRESS_PER_HOUR,
    passwordHashConcurrency: e.PASSWORD_HASH_CONCURRENCY,
    signup: e.SIGNUP,
    metricsEnabled: e.METRICS_ENABLED,
    metricsToken: e.METRICS_TOKEN,
    metricsPort: e.METRICS_PORT,
  };
}
