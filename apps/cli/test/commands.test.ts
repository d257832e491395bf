import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { forwardUrl } from "../src/commands/listen.js";
import { runCli } from "./run-cli.js";

let db: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, BASE_URL: "https://hooks.example.com" };
});
afterAll(() => db.drop());

/*
 * Each command here is a process of its own, which costs over a second of CPU to start, so
 * the file's time is its number of commands. Once the first user exists (it must be the first,
 * to be the admin), the tests share nothing but that user and run concurrently, as do the
 * independent commands inside a test; run-cli caps how many processes run at once. The
 * timeout covers a test's waits for a process slot on a busy machine; a command that hangs is
 * still killed by runCli's own timeout.
 */
const concurrent = { concurrent: true, timeout: 300_000 };

function expectOneLineError(stderr: string, pattern: RegExp) {
  expect(stderr).toMatch(pattern);
  expect(stderr.trim().split("\n")).toHaveLength(1);
  expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe("rehook user create", () => {
  it("creates a user and prints it as JSON", async () => {
    const result = await runCli(["user", "create", "--email", "Dev@Example.com", "--password", "s3cret-pass"], env);
    expect(result.code).toBe(0);
    // The first user of a server is its admin (someone must be able to invite).
    expect(JSON.parse(result.stdout)).toMatchObject({ email: "dev@example.com", is_admin: true });
    const [row] = await db.query<{ password_hash: string }>("select password_hash from users where email = 'dev@example.com'");
    expect(row!.password_hash).toMatch(/^scrypt\$/);
    expect(row!.password_hash).not.toContain("s3cret-pass");
  });
});

// The same group, after its first user: these need that user to exist and not to be theirs.
describe("rehook user create", concurrent, () => {
  // Since teams, invites come from a team's admins, whatever is_admin says: a new user owns
  // their personal team and may invite to it (team-commands.test.ts has the refusals).
  it("makes admins only when asked (after the first); invite links come from the admins of a team", async () => {
    const [plain, admin] = await Promise.all([
      runCli(["user", "create", "--email", "plain@example.com", "--password", "s3cret-pass"], env),
      runCli(["user", "create", "--email", "admin@example.com", "--password", "s3cret-pass", "--admin"], env),
    ]);
    expect(JSON.parse(plain.stdout)).toMatchObject({ is_admin: false });
    expect(JSON.parse(admin.stdout)).toMatchObject({ is_admin: true });

    const invited = await runCli(["invite", "create", "--email", "plain@example.com"], env);
    expect(invited.code).toBe(0);
    const [details, link] = invited.stdout.trim().split("\n");
    expect(JSON.parse(details!)).toMatchObject({ state: "open", role: "developer", used_by: null });
    expect(link).toMatch(/^https:\/\/hooks\.example\.com\/signup\?invite=[0-9A-Za-z]{32}$/);
    const [stored] = await db.query<{ token_hash: Buffer }>("select token_hash from invites");
    expect(stored!.token_hash.toString("hex")).not.toContain(Buffer.from(link!.split("=")[1]!).toString("hex"));
  });

  it("refuses an email that exists, with a clear message", async () => {
    const result = await runCli(["user", "create", "--email", "dev@example.com", "--password", "another-pass"], env);
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr, /already exists/);
  });

  it("refuses an invalid email and a short password", async () => {
    const [badEmail, shortPassword] = await Promise.all([
      runCli(["user", "create", "--email", "not-an-email", "--password", "long enough"], env),
      runCli(["user", "create", "--email", "x@example.com", "--password", "short"], env),
    ]);
    expect(badEmail.code).toBe(1);
    expectOneLineError(badEmail.stderr, /Email must be a valid email address\./);
    expect(shortPassword.code).toBe(1);
    expectOneLineError(shortPassword.stderr, /at least 8 characters/);
  });

  it("says which flag is missing", async () => {
    const result = await runCli(["user", "create", "--email", "x@example.com"], env);
    expect(result.code).toBe(2);
    expectOneLineError(result.stderr, /The option --password is required\. Add it to the command\./);
  });
});

describe("rehook endpoint", concurrent, () => {
  it("create prints the endpoint: {id, name, slug, webhook_url, destination_url, health, …}", async () => {
    const result = await runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "Stripe Prod", "--destination", "https://example.com/in"], env);
    expect(result.code).toBe(0);
    const endpoint = JSON.parse(result.stdout);
    expect(Object.keys(endpoint).slice(0, 6)).toEqual(["id", "name", "slug", "webhook_url", "destination_url", "health"]);
    expect(endpoint.health).toEqual({ state: "capturing", success_rate: null });
    expect(endpoint.sign_requests).toBe(false);
    expect(endpoint.slug).toMatch(/^stripe-prod-[a-z0-9]{8}$/);
    expect(endpoint.webhook_url).toBe(`https://hooks.example.com/api/webhook/${endpoint.slug}`);
    expect(endpoint.destination_url).toBe("https://example.com/in");
    const [row] = await db.query<{ secret: string }>("select secret from endpoints where id = $1", [endpoint.id]);
    expect(Buffer.from(row!.secret.replace(/^whsec_/, ""), "base64")).toHaveLength(32);
  });

  it("create refuses an unknown owner and a bad destination", async () => {
    const [unknown, badUrl] = await Promise.all([
      runCli(["endpoint", "create", "--email", "nobody@example.com", "--name", "x"], env),
      runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "x", "--destination", "ftp://example.com"], env),
    ]);
    expect(unknown.code).toBe(1);
    expectOneLineError(unknown.stderr, /There is no user with the email nobody@example.com\. /);
    expect(badUrl.code).toBe(1);
    expectOneLineError(badUrl.stderr, /destination URL refused: scheme ftp/);
  });

  it("create refuses internal destinations with the reason, unless private destinations are allowed", async () => {
    const create = (destination: string, extra: Record<string, string> = {}) =>
      runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "internal", "--destination", destination], { ...env, ...extra });
    const [loopback, allowed, metadata] = await Promise.all([
      create("http://127.0.0.1:3000/hook"),
      create("http://127.0.0.1:3000/hook", { ALLOW_PRIVATE_DESTINATIONS: "true" }),
      create("http://169.254.169.254/latest/meta-data/", { ALLOW_PRIVATE_DESTINATIONS: "true" }),
    ]);
    expect(loopback.code).toBe(1);
    expectOneLineError(loopback.stderr, /destination URL refused: blocked: loopback address; a self-hosted server can allow private destinations with ALLOW_PRIVATE_DESTINATIONS=true$/m);
    expect(allowed.code).toBe(0);
    expect(metadata.code).toBe(1);
    expectOneLineError(metadata.stderr, /cloud metadata address/);
  });

  it("secret prints the whsec_ secret, --rotate replaces it, --sign turns signing on", async () => {
    // An unknown slug needs no endpoint: ask while the endpoint is being created.
    const [creation, missing] = await Promise.all([
      runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "signed", "--sign"], env),
      runCli(["endpoint", "secret", "--email", "dev@example.com", "--slug", "nope-12345678"], env),
    ]);
    const created = JSON.parse(creation.stdout);
    const [row] = await db.query<{ sign_requests: boolean; secret: string }>("select sign_requests, secret from endpoints where id = $1", [created.id]);
    expect(row!.sign_requests).toBe(true);
    const shown = JSON.parse((await runCli(["endpoint", "secret", "--email", "dev@example.com", "--slug", created.slug], env)).stdout);
    expect(shown).toEqual({ slug: created.slug, secret: row!.secret });
    const rotated = JSON.parse((await runCli(["endpoint", "secret", "--email", "dev@example.com", "--slug", created.slug, "--rotate"], env)).stdout);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.secret).not.toBe(row!.secret);
    expect(missing.code).toBe(1);
    expectOneLineError(missing.stderr, /There is no endpoint with the slug nope-12345678\. /);
  });

  it("update sets the answer to senders and the signature check from JSON, never printing the secret", async () => {
    const created = JSON.parse((await runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "ingress"], env)).stdout);
    const verification = JSON.stringify({ scheme: "stripe", secret: "whsec_cli_secret_1234", reject_invalid: true });
    const updated = await runCli(
      ["endpoint", "update", "--email", "dev@example.com", "--slug", created.slug, "--verification", verification, "--response", '{"status":202,"body":"ok {{event_id}}"}'],
      env,
    );
    expect(updated.code).toBe(0);
    expect(updated.stdout).not.toContain("whsec_cli_secret");
    const shown = JSON.parse(updated.stdout);
    expect(shown.verification).toEqual({ scheme: "stripe", reject_invalid: true, secret: { set: true, last4: "1234" } });
    expect(shown.response).toEqual({ status: 202, headers: {}, body: "ok {{event_id}}", delay_ms: 0 });
    const [row] = await db.query<{ verification: { secret: string } }>("select verification from endpoints where id = $1", [created.id]);
    expect(row!.verification.secret).toBe("whsec_cli_secret_1234");

    // Refused updates change nothing, so they can run beside the one that clears the check.
    const [badJson, badValue, clearing] = await Promise.all([
      runCli(["endpoint", "update", "--email", "dev@example.com", "--slug", created.slug, "--response", "{status: 202"], env),
      runCli(["endpoint", "update", "--email", "dev@example.com", "--slug", created.slug, "--response", '{"status":700}'], env),
      runCli(["endpoint", "update", "--email", "dev@example.com", "--slug", created.slug, "--verification", "null"], env),
    ]);
    expect(badJson.code).toBe(2);
    expectOneLineError(badJson.stderr, /--response must be JSON/);
    expect(badValue.code).toBe(1);
    expectOneLineError(badValue.stderr, /status must be a whole number from 200 to 599/i);
    const cleared = JSON.parse(clearing.stdout);
    expect(cleared.verification).toBeNull();
  });

  it("create and update set deduplication from --dedup and --dedup-window, --no-dedup clears it, and events list filters duplicates", async () => {
    const created = await runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "deduped", "--dedup", "header:X-Delivery-Id", "--dedup-window", "600"], env);
    expect(created.code).toBe(0);
    const endpoint = JSON.parse(created.stdout);
    expect(endpoint.dedup).toEqual({ key: { header: "X-Delivery-Id" }, window_s: 600 });

    // Refused updates change nothing, so they can run beside the one that clears the rule.
    const update = (...flags: string[]) => runCli(["endpoint", "update", "--email", "dev@example.com", "--slug", endpoint.slug, ...flags], env);
    const [badSpelling, badWindow, clearing, duplicates, badStatus] = await Promise.all([
      update("--dedup", "delivery-id"),
      update("--dedup", "auto", "--dedup-window", "604801"),
      update("--no-dedup"),
      runCli(["events", "list", "--email", "dev@example.com", "--endpoint", endpoint.id, "--status", "duplicate", "--json"], env),
      runCli(["events", "list", "--email", "dev@example.com", "--status", "repeated"], env),
    ]);
    expect(badSpelling.code).toBe(2);
    expectOneLineError(badSpelling.stderr, /--dedup must be auto, body, header:NAME, json:PATH or off/);
    expect(badWindow.code).toBe(1);
    expectOneLineError(badWindow.stderr, /window_s must be a whole number of seconds from 1 to 604,800/);
    expect(clearing.code).toBe(0);
    expect(JSON.parse(clearing.stdout).dedup).toBeNull();
    expect(duplicates.code).toBe(0);
    expect(JSON.parse(duplicates.stdout)).toMatchObject({ data: [], meta: { total: 0 } });
    expect(badStatus.code).toBe(2);
    expectOneLineError(badStatus.stderr, /--status must be one of .*\bduplicate\b/);
  });

  it("update refuses a token with an unpaired surrogate (a \\ud800 escape in its JSON) in one line, exit 1, instead of a database error", async () => {
    const created = JSON.parse((await runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "meta"], env)).stdout);
    // argv cannot carry NUL or a lone surrogate; a JSON option can, as an escape.
    const result = await runCli(["endpoint", "update", "--email", "dev@example.com", "--slug", created.slug, "--handshake", '{"provider":"meta","token":"abc\\ud800"}'], env);
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr, /^rehook: Token must not contain NUL characters or unpaired surrogates/);
    const [row] = await db.query<{ handshake: unknown }>("select handshake from endpoints where id = $1", [created.id]);
    expect(row!.handshake).toBeNull();
  });

  it("delete removes the endpoint; deleting it again is an error", async () => {
    const created = JSON.parse((await runCli(["endpoint", "create", "--email", "dev@example.com", "--name", "temp"], env)).stdout);
    const deleted = await runCli(["endpoint", "delete", "--email", "dev@example.com", "--slug", created.slug], env);
    expect(deleted.code).toBe(0);
    expect(await db.query("select 1 from endpoints where id = $1", [created.id])).toHaveLength(0);
    const again = await runCli(["endpoint", "delete", "--email", "dev@example.com", "--slug", created.slug], env);
    expect(again.code).toBe(1);
    expectOneLineError(again.stderr, /There is no endpoint with the slug/);
  });
});

describe("rehook itself", concurrent, () => {
  it("prints help for every command and exits 0", async () => {
    const commands = [[], ["start"], ["migrate"], ["user", "create"], ["endpoint", "create"], ["endpoint", "delete"], ["endpoint", "secret"]];
    const results = await Promise.all(commands.map((command) => runCli([...command, "--help"], env)));
    for (const [index, result] of results.entries()) {
      expect(result.code, commands[index]!.join(" ")).toBe(0);
      expect(result.stdout).toMatch(/^Usage: rehook/);
    }
  });

  it("prints its version, and the commands of a group (user, endpoint) with --help or alone", async () => {
    const groups = ["user", "endpoint"];
    const [version, alone, ...helps] = await Promise.all([
      runCli(["--version"], env),
      runCli(["endpoint"], env),
      ...groups.map((group) => runCli([group, "--help"], env)),
    ]);
    expect(version).toMatchObject({ code: 0, stdout: expect.stringMatching(/^rehook \d+\.\d+\.\d+\n$/) });
    for (const [index, group] of groups.entries()) {
      const help = helps[index]!;
      expect(help.code, group).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: rehook ${group} <command>`));
      expect(help.stdout).toContain(`rehook ${group} create`);
    }
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain("rehook endpoint delete");
  });

  it("understands --forward without a scheme as http, and refuses other schemes in one line", () => {
    expect(forwardUrl("localhost:3000/hooks").href).toBe("http://localhost:3000/hooks");
    expect(forwardUrl("3000").href).toBe("http://localhost:3000/");
    expect(forwardUrl("https://example.test/in").href).toBe("https://example.test/in");
    expect(() => forwardUrl("ftp://example.test/in")).toThrow(/http:\/\/ or https:\/\//);
    expect(() => forwardUrl("http://[nope")).toThrow(/is not a URL/);
  });

  it("rejects unknown commands and flags with one line and exit code 2", async () => {
    const [unknown, badFlag] = await Promise.all([runCli(["frobnicate"], env), runCli(["migrate", "--force"], env)]);
    expect(unknown.code).toBe(2);
    expectOneLineError(unknown.stderr, /unknown command "frobnicate"/);
    expect(badFlag.code).toBe(2);
    expectOneLineError(badFlag.stderr, /Unknown option '--force'/);
  });

  it("rejects bad configuration with one line", async () => {
    const result = await runCli(["migrate"], { ...env, PORT: "not-a-port" });
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr, /invalid PORT/);
  });

  it("rehook start refuses a number that is not plain digits (RETENTION_DAYS=\" \", 0x10) with one line and exit 1, before serving", async () => {
    // Before, both started a server (" " read as 0: keep events for ever), which this run would wait on until its timeout.
    const cases: Array<[string, string, RegExp]> = [
      ["RETENTION_DAYS", " ", /^rehook: invalid RETENTION_DAYS: " " is not a whole number from 0 to 3650 \(decimal digits only/],
      ["MAX_PAYLOAD_BYTES", "0x10", /^rehook: invalid MAX_PAYLOAD_BYTES: "0x10" is not a whole number/],
    ];
    const results = await Promise.all(cases.map(([name, value]) => runCli(["start"], { ...env, PORT: "0", HOST: "127.0.0.1", [name]: value }, 20_000)));
    for (const [index, [name, value, message]] of cases.entries()) {
      const result = results[index]!;
      expect(result.code, `${name}=${JSON.stringify(value)}`).toBe(1);
      expectOneLineError(result.stderr, message);
    }
  });

  it("migrate is idempotent", async () => {
    const result = await runCli(["migrate"], env);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ applied: [] });
  });

  it("reports an unreachable database in one line", async () => {
    // DATABASE_WAIT_MS=0: try once (the wait itself is tested in database-wait.test.ts).
    const result = await runCli(["migrate"], { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none", DATABASE_WAIT_MS: "0" });
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr, /^rehook: .*(ECONNREFUSED|connect)/i);
  });
});

describe("rehook apikey", concurrent, () => {
  it("create prints the key's details, then the pk_live_ key alone on the last line", async () => {
    const result = await runCli(["apikey", "create", "--email", "dev@example.com", "--name", "deploys"], env);
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    const key = lines.at(-1)!;
    expect(key).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ name: "deploys", prefix: key.slice(0, 12), role: "developer", revoked_at: null });
    const [row] = await db.query<{ key_hash: Buffer }>("select key_hash from api_keys where prefix = $1", [key.slice(0, 12)]);
    expect(row!.key_hash).toHaveLength(32);
  });

  it("create --json prints one JSON object with the key in it, for scripts", async () => {
    const result = await runCli(["apikey", "create", "--email", "dev@example.com", "--name", "ci", "--json"], env);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split("\n")).toHaveLength(1);
    const created = JSON.parse(result.stdout) as { key: string; prefix: string; name: string };
    expect(created.key).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/);
    expect(created).toMatchObject({ name: "ci", prefix: created.key.slice(0, 12) });
  });

  it("create refuses an unknown owner with one line", async () => {
    const result = await runCli(["apikey", "create", "--email", "nobody@example.com"], env);
    expect(result.code).toBe(1);
    expectOneLineError(result.stderr, /There is no user with the email nobody@example.com\. /);
  });
});

