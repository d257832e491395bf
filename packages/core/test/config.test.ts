import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, parseCapturePath, parseDecimalInteger, parseWorkers, toIsoMillis, webhookUrl } from "../src/index.js";

describe("configuration", () => {
  it("accepts SMTP_ALLOW_PLAINTEXT_AUTH only for a relay on this machine, and never without SMTP_URL", () => {
    expect(loadConfig({ SMTP_URL: "smtp://u:p@mail.example.com:587" }, "/d").smtp).toMatchObject({ allowPlaintextAuth: false });
    for (const host of ["127.0.0.1", "127.0.0.53", "localhost", "[::1]"]) {
      expect(loadConfig({ SMTP_URL: `smtp://u:p@${host}:25`, SMTP_ALLOW_PLAINTEXT_AUTH: "true" }, "/d").smtp).toMatchObject({ allowPlaintextAuth: true });
    }
    for (const host of ["mail.example.com", "10.0.0.5", "192.168.1.2", "[fd00::1]"]) {
      expect(() => loadConfig({ SMTP_URL: `smtp://u:p@${host}:25`, SMTP_ALLOW_PLAINTEXT_AUTH: "true" }, "/d")).toThrow(/^invalid SMTP_ALLOW_PLAINTEXT_AUTH: SMTP_URL's host .* is not this machine/);
    }
    expect(() => loadConfig({ SMTP_ALLOW_PLAINTEXT_AUTH: "true" }, "/d")).toThrow("invalid SMTP_ALLOW_PLAINTEXT_AUTH: it needs SMTP_URL");
  });

  it("refuses a query in SMTP_URL (nodemailer would read it as options: another host, no STARTTLS, any certificate)", () => {
    for (const url of ["smtp://u:p@mail.example.com:587?service=Maildev", "smtp://u:p@127.0.0.1?service=AOL", "smtps://u:p@mail.example.com?tls.rejectUnauthorized=false", "smtp://mail.example.com#x"]) {
      expect(() => loadConfig({ SMTP_URL: url }, "/d")).toThrow(/^invalid SMTP_URL: it takes no query or fragment \(\S+ given\): Rehook sets the transport options itself/);
    }
    expect(loadConfig({ SMTP_URL: "smtp://u:p@mail.example.com:587" }, "/d").smtp).toMatchObject({ url: "smtp://u:p@mail.example.com:587" });
  });

  it("has a default for everything", () => {
    const config = loadConfig({}, "/data");
    expect(config).toMatchObject({
      port: 8080,
      baseUrl: "http://localhost:8080",
      databaseUrl: undefined,
      dataDir: "/data",
      maxPayloadBytes: 10 * 1024 * 1024,
      trustedProxyHops: 0,
      dashboardOrigins: ["http://localhost:8080"],
      baseUrlIsDefault: true,
    });
  });

  it("reads LOG_FORMAT (pretty by default) and SHUTDOWN_DRAIN_MS (5 s by default, at most 120 s)", () => {
    expect(loadConfig({}, "/d")).toMatchObject({ logFormat: "pretty", shutdownDrainMs: 5_000, streamRestartRetryMs: 30_000 });
    expect(loadConfig({ STREAM_RESTART_RETRY_MS: "8000" }, "/d")).toMatchObject({ streamRestartRetryMs: 8_000 });
    expect(() => loadConfig({ STREAM_RESTART_RETRY_MS: "999" }, "/d")).toThrow(/STREAM_RESTART_RETRY_MS/);
    expect(loadConfig({ LOG_FORMAT: "json", SHUTDOWN_DRAIN_MS: "0" }, "/d")).toMatchObject({ logFormat: "json", shutdownDrainMs: 0 });
    expect(() => loadConfig({ LOG_FORMAT: "xml" }, "/d")).toThrow(/LOG_FORMAT/);
    expect(() => loadConfig({ SHUTDOWN_DRAIN_MS: "120001" }, "/d")).toThrow(/SHUTDOWN_DRAIN_MS/);
  });

  it("reads WORKERS: 1 by default, an integer from 1 to 64 or auto", () => {
    expect(loadConfig({}, "/d").workers).toBe(1);
    expect(loadConfig({ WORKERS: "4" }, "/d").workers).toBe(4);
    expect(loadConfig({ WORKERS: "auto" }, "/d").workers).toBe("auto");
    for (const bad of ["0", "65", "x", "1.5", "-1"]) {
      expect(() => loadConfig({ WORKERS: bad }, "/d")).toThrow("invalid WORKERS: must be an integer from 1 to 64, or auto");
    }
  });

  it("trusts TRUST_PROXY_HOPS proxies only with TRUST_PROXY, and reads ALLOWED_ORIGINS as a list of origins", () => {
    expect(loadConfig({ TRUST_PROXY_HOPS: "2" }, "/d").trustedProxyHops).toBe(0);
    expect(loadConfig({ TRUST_PROXY: "true" }, "/d").trustedProxyHops).toBe(1);
    expect(loadConfig({ TRUST_PROXY: "true", TRUST_PROXY_HOPS: "2" }, "/d").trustedProxyHops).toBe(2);
    const config = loadConfig({ BASE_URL: "https://hooks.example.com/", ALLOWED_ORIGINS: "https://admin.example.com, http://10.0.0.5:8080/" }, "/d");
    expect(config.dashboardOrigins).toEqual(["https://hooks.example.com", "https://admin.example.com", "http://10.0.0.5:8080"]);
    expect(config.baseUrlIsDefault).toBe(false);
    expect(() => loadConfig({ ALLOWED_ORIGINS: "https://admin.example.com/path" }, "/d")).toThrow(/ALLOWED_ORIGINS/);
    expect(() => loadConfig({ ALLOWED_ORIGINS: "admin.example.com" }, "/d")).toThrow(/ALLOWED_ORIGINS/);
  });

  it("derives BASE_URL from PORT and strips a trailing slash from a given one", () => {
    expect(loadConfig({ PORT: "9000" }, "/d").baseUrl).toBe("http://localhost:9000");
    expect(loadConfig({ BASE_URL: "https://hooks.example.com/" }, "/d").baseUrl).toBe("https://hooks.example.com");
  });

  it("refuses bad values with a one-line message naming the variable", () => {
    expect(() => loadConfig({ PORT: "eighty" }, "/d")).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: "eighty" }, "/d")).toThrow(/PORT/);
    expect(() => loadConfig({ DATABASE_URL: "mysql://x" }, "/d")).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ TRUST_PROXY: "maybe" }, "/d")).toThrow(/TRUST_PROXY/);
  });

  it("caps forwards in flight per destination at MAX_IN_FLIGHT_PER_DESTINATION (or its old name MAX_IN_FLIGHT_PER_ENDPOINT), 200 unless set", () => {
    expect(loadConfig({}, "/d").maxInFlightPerDestination).toBe(200);
    expect(loadConfig({ MAX_IN_FLIGHT_PER_ENDPOINT: "5" }, "/d").maxInFlightPerDestination).toBe(5);
    expect(loadConfig({ MAX_IN_FLIGHT_PER_DESTINATION: "7", MAX_IN_FLIGHT_PER_ENDPOINT: "5" }, "/d").maxInFlightPerDestination).toBe(7);
    expect(() => loadConfig({ MAX_IN_FLIGHT_PER_DESTINATION: "0" }, "/d")).toThrow(/MAX_IN_FLIGHT_PER_DESTINATION/);
    expect(() => loadConfig({ MAX_IN_FLIGHT_PER_ENDPOINT: "0" }, "/d")).toThrow(/MAX_IN_FLIGHT_PER_ENDPOINT/);
    expect(() => loadConfig({ MAX_IN_FLIGHT_PER_ENDPOINT: "many" }, "/d")).toThrow(/MAX_IN_FLIGHT_PER_ENDPOINT/);
  });

  it("serves metrics on PORT by default, without a token; METRICS_TOKEN and METRICS_PORT are checked", () => {
    expect(loadConfig({}, "/d")).toMatchObject({ metricsEnabled: true, metricsToken: undefined, metricsPort: undefined });
    expect(loadConfig({ METRICS_ENABLED: "false" }, "/d").metricsEnabled).toBe(false);
    const token = "0123456789abcdef0123";
    expect(loadConfig({ METRICS_TOKEN: token, METRICS_PORT: "9464" }, "/d")).toMatchObject({ metricsToken: token, metricsPort: 9464 });
    expect(loadConfig({ METRICS_PORT: "0", PORT: "0" }, "/d").metricsPort).toBe(0);
    expect(() => loadConfig({ METRICS_TOKEN: "short" }, "/d")).toThrow(/METRICS_TOKEN: must be at least 16/);
    expect(() => loadConfig({ METRICS_TOKEN: "has a space in it, sixteen+" }, "/d")).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_PORT: "8080" }, "/d")).toThrow(/METRICS_PORT: it is PORT/);
    expect(() => loadConfig({ METRICS_PORT: "70000" }, "/d")).toThrow(/METRICS_PORT/);
    expect(loadConfig({}, "/d").metricsWorkersWaitMs).toBe(2_000);
    expect(loadConfig({ METRICS_WORKERS_WAIT_MS: "15000" }, "/d").metricsWorkersWaitMs).toBe(15_000);
    expect(() => loadConfig({ METRICS_WORKERS_WAIT_MS: "50" }, "/d")).toThrow(/METRICS_WORKERS_WAIT_MS/);
  });

  it("treats empty variables as unset", () => {
    expect(loadConfig({ DATABASE_URL: "" }, "/d").databaseUrl).toBeUndefined();
    expect(loadConfig({ RETENTION_DAYS: "" }, "/d").retentionDays).toBe(30);
  });

  const NUMERIC_SETTINGS = [
    "PORT",
    "DATABASE_POOL_SIZE",
    "MAX_PAYLOAD_BYTES",
    "MAX_HEADER_COUNT",
    "TRUST_PROXY_HOPS",
    "FORWARD_TIMEOUT_MS",
    "MAX_IN_FLIGHT_PER_ENDPOINT",
    "MAX_IN_FLIGHT_PER_DESTINATION",
    "RETENTION_DAYS",
    "SHUTDOWN_DRAIN_MS",
    "API_RATE_LIMIT_PER_MINUTE",
    "SIGNUPS_PER_ADDRESS_PER_HOUR",
    "PASSWORD_HASH_CONCURRENCY",
    "METRICS_PORT",
    "METRICS_WORKERS_WAIT_MS",
    "WORKERS",
  ];

  it("reads every numeric setting as plain decimal digits only: whitespace, hex, exponents, signs and fractions are refused", () => {
    // Number() reads each of these as a number (" " as 0: RETENTION_DAYS=" " meant keep for ever).
    for (const name of NUMERIC_SETTINGS) {
      for (const bad of [" ", "\t", "0x10", "0o7", "0b1", "1e3", "+5", "5.0", " 5", "5 ", "Infinity", "99999999999999999999"]) {
        expect(() => loadConfig({ [name]: bad }, "/d"), `${name}=${JSON.stringify(bad)}`).toThrow(ConfigError);
        expect(() => loadConfig({ [name]: bad }, "/d"), `${name}=${JSON.stringify(bad)}`).toThrow(new RegExp(`^invalid ${name}: `));
      }
    }
    expect(() => loadConfig({ RETENTION_DAYS: " " }, "/d")).toThrow('invalid RETENTION_DAYS: " " is not a whole number from 0 to 3650 (decimal digits only: no spaces, sign, decimal point, exponent or 0x)');
    expect(() => loadConfig({ MAX_PAYLOAD_BYTES: "0x10" }, "/d")).toThrow('invalid MAX_PAYLOAD_BYTES: "0x10" is not a whole number of 1 or more');
  });

  it("still reads plain digits, 0 where it is allowed (RETENTION_DAYS=0 keeps events for ever), and leading zeros", () => {
    expect(loadConfig({ RETENTION_DAYS: "0", PORT: "0", SHUTDOWN_DRAIN_MS: "0" }, "/d")).toMatchObject({ retentionDays: 0, port: 0, shutdownDrainMs: 0 });
    expect(loadConfig({ RETENTION_DAYS: "3650", MAX_PAYLOAD_BYTES: "1048576", TRUST_PROXY: "true", TRUST_PROXY_HOPS: "010" }, "/d")).toMatchObject({
      retentionDays: 3650,
      maxPayloadBytes: 1_048_576,
      trustedProxyHops: 10,
    });
    expect(() => loadConfig({ RETENTION_DAYS: "3651" }, "/d")).toThrow(/RETENTION_DAYS/);
    expect(() => loadConfig({ DATABASE_POOL_SIZE: "0" }, "/d")).toThrow(/DATABASE_POOL_SIZE/);
  });

  it("parses decimal integers strictly, and WORKERS (and --workers) with the same rule", () => {
    expect(parseDecimalInteger("42")).toBe(42);
    expect(parseDecimalInteger("007")).toBe(7);
    for (const bad of ["", " ", " 4", "4 ", "0x10", "1e3", "+5", "-5", "5.0", "٣", "9007199254740993"]) expect(parseDecimalInteger(bad), bad).toBeUndefined();
    expect(parseWorkers("4")).toBe(4);
    expect(parseWorkers("auto")).toBe("auto");
    for (const bad of [" 4", "4 ", "0x4", "4.0", "+4", " auto"]) expect(parseWorkers(bad), bad).toBeUndefined();
  });
});

describe("capture paths", () => {
  it("splits slug and captured sub-path", () => {
    expect(parseCapturePath("/api/webhook/orders-abcd1234")).toEqual({ slug: "orders-abcd1234", subPath: "" });
    expect(parseCapturePath("/api/webhook/orders-abcd1234/github/push")).toEqual({ slug: "orders-abcd1234", subPath: "/github/push" });
    expect(parseCapturePath("/api/webhook/")).toBeUndefined();
    expect(parseCapturePath("/api/events")).toBeUndefined();
  });

  it("builds the capture URL from the base URL", () => {
    expect(webhookUrl("https://r.example", "a-12345678")).toBe("https://r.example/api/webhook/a-12345678");
  });
});

describe("timestamps", () => {
  it("render as ISO 8601 UTC with milliseconds", () => {
    expect(toIsoMillis(new Date(Date.UTC(2026, 10, 21, 10, 15, 30, 123)))).toBe("2026-11-21T10:15:30.123Z");
    expect(toIsoMillis(new Date(Date.UTC(2026, 0, 1)))).toBe("2026-01-01T00:00:00.000Z");
  });
});
