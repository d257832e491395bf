import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { exited, runCli, startRehook } from "./run-cli.js";

// The line `rehook start` prints once it listens says where to go next: the sign-up page
// before the first user, the dashboard after.

let db: TestDatabase;
const children: ChildProcess[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGKILL");
    await exited(child);
  }
});
afterAll(() => db.drop());

/** Starts `rehook start` and answers its start line and URL. */
async function startLineOf(env: Record<string, string>): Promise<{ line: string; url: string }> {
  const started = await startRehook({ DATABASE_URL: db.url, ...env });
  children.push(started.child);
  const line = started.log().split("\n").find((text) => text.includes("Rehook listening on"))!;
  return { line, url: started.url };
}

describe("the start line", () => {
  it("before the first user, with sign-up open: open <url>/signup to create the first user", async () => {
    const { line, url } = await startLineOf({});
    expect(line).toContain(`Rehook listening on ${url} — open ${url}/signup to create the first user`);
  });

  it("before the first user, with SIGNUP=closed: create one with rehook user create", async () => {
    const { line, url } = await startLineOf({ SIGNUP: "closed" });
    expect(line).toContain(`— create the first user with rehook user create --email <email> --password <password>, then open ${url}`);
    expect(line).not.toContain("/signup");
  });

  it("once a user exists: open <BASE_URL>, no sign-up hint", async () => {
    expect((await runCli(["user", "create", "--email", "start-line@example.com", "--password", "long enough"], { DATABASE_URL: db.url })).code).toBe(0);
    const { line, url } = await startLineOf({ BASE_URL: "https://hooks.example.com" });
    expect(line).toContain(`Rehook listening on ${url} — open https://hooks.example.com`);
    expect(line).not.toContain("signup");
  });
});
