import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { runCli } from "./run-cli.js";

// The CLI shares the endpoint use cases: the same refusals of a custom response that would be
// active content on the dashboard's origin, and capture URLs built from CAPTURE_BASE_URL.

let db: TestDatabase;
let env: Record<string, string>;

beforeAll(async () => {
  db = await createTestDatabase();
  env = { DATABASE_URL: db.url, BASE_URL: "https://rehook.example.com", CAPTURE_BASE_URL: "https://hooks.example.net" };
  expect((await runCli(["user", "create", "--email", "cli@example.com", "--password", "s3cret-pass"], env)).code).toBe(0);
});
afterAll(() => db.drop());

describe("rehook endpoint and custom responses", () => {
  it("prints capture URLs on CAPTURE_BASE_URL", async () => {
    const created = await runCli(["endpoint", "create", "--email", "cli@example.com", "--name", "Separate"], env);
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout) as { slug: string; webhook_url: string };
    expect(endpoint.webhook_url).toBe(`https://hooks.example.net/api/webhook/${endpoint.slug}`);
  });

  it.each([
    ['{"status":200,"headers":{"Content-Type":"text/html"},"body":"<script></script>"}', /the Content-Type text\/html is refused/],
    ['{"status":200,"headers":{"Set-Cookie":"rehook_session=x"}}', /the response header Set-Cookie is refused/],
    ['{"status":200,"headers":{"X-Note":"\\u2028"}}', /X-Note contains U\+2028/],
    ['{"status":200,"body":"a\\u0000b"}', /Body must not contain NUL characters or unpaired surrogates/],
  ])("update refuses --response %s in one line, exit 1", async (response, message) => {
    const created = JSON.parse((await runCli(["endpoint", "create", "--email", "cli@example.com", "--name", "Refused"], env)).stdout) as { slug: string };
    const refused = await runCli(["endpoint", "update", "--email", "cli@example.com", "--slug", created.slug, "--response", response], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(message);
    expect(refused.stderr.trim().split("\n")).toHaveLength(1);
  });
});
