import { describe, expect } from "vitest";
import { verifyPassword } from "@rehook/auth";
import { createUser, requireUserByEmail } from "@rehook/services";
import { expectRefused, PASSWORD, test } from "./support.js";

// Accounts as `rehook user create` and sign-up make them: emails normalised, passwords
// hashed, one account per email, and the sign-up's invite claimed in the same transaction.

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 10)}@example.com`;

describe("createUser", () => {
  // First in the file: the file's database has no user yet.
  test("makes the server's first user an admin, a later one only when asked", async ({ services, database }) => {
    const before = await database.query("select 1 from users");
    const first = await createUser(services, { email: unique("first"), password: PASSWORD });
    expect(first.isAdmin).toBe(before.length === 0);
    expect((await createUser(services, { email: unique("later"), password: PASSWORD })).isAdmin).toBe(false);
    expect((await createUser(services, { email: unique("admin"), password: PASSWORD, isAdmin: true })).isAdmin).toBe(true);
  });

  test("stores the email trimmed and lower-cased, and a hash of the password", async ({ services, database }) => {
    const email = unique("Mixed");
    const user = await createUser(services, { email: `  ${email.toUpperCase()} `, password: PASSWORD });
    expect(user).toEqual({ id: user.id, email: email.toLowerCase(), isAdmin: false });
    const [row] = await database.query<{ email: string; password_hash: string }>("select email, password_hash from users where id = $1", [user.id]);
    expect(row!.email).toBe(email.toLowerCase());
    expect(row!.password_hash).not.toContain(PASSWORD);
    expect(await verifyPassword(PASSWORD, row!.password_hash)).toBe(true);
  });

  test("refuses an email already taken, whatever its case, saying what to do", async ({ services, user }) => {
    await expectRefused(
      createUser(services, { email: user.email.toUpperCase(), password: PASSWORD }),
      "conflict",
      `A user with the email ${user.email} already exists. Log in instead, or use another email.`,
    );
  });

  test("refuses a malformed email and a short or long password, storing nothing", async ({ services, database }) => {
    await expectRefused(createUser(services, { email: "not an email", password: PASSWORD }), "validation_failed", "Email must be a valid email address.");
    await expectRefused(createUser(services, { email: unique("short"), password: "short" }), "validation_failed", "Password must be at least 8 characters.");
    await expectRefused(createUser(services, { email: unique("long"), password: "x".repeat(1025) }), "validation_failed", /^Password must be at most \d+ characters\.$/);
    expect(await database.query("select 1 from users where email like 'short-%' or email like 'long-%'")).toEqual([]);
  });

  test("runs beforeInsert and its follow-up in the user's transaction: when either fails, no user is stored", async ({ services, database }) => {
    const seen: string[] = [];
    const email = unique("hooked");
    const created = await createUser(services, { email, password: PASSWORD }, async () => {
      seen.push("before");
      return async (userId) => void seen.push(`after ${userId}`);
    });
    expect(seen).toEqual(["before", `after ${created.id}`]);

    const failingBefore = unique("before");
    await expect(createUser(services, { email: failingBefore, password: PASSWORD }, () => Promise.reject(new Error("claim refused")))).rejects.toThrow("claim refused");
    const failingAfter = unique("after");
    await expect(
      createUser(services, { email: failingAfter, password: PASSWORD }, async () => async () => {
        throw new Error("claim lost");
      }),
    ).rejects.toThrow("claim lost");
    expect(await database.query("select 1 from users where email = any($1)", [[failingBefore, failingAfter]])).toEqual([]);
  });
});

describe("requireUserByEmail", () => {
  test("finds the user by a differently written email", async ({ services, user }) => {
    expect((await requireUserByEmail(services, ` ${user.email.toUpperCase()}`)).id).toBe(user.id);
  });

  test("refuses an unknown email with how to create the user, and a malformed one", async ({ services }) => {
    await expectRefused(
      requireUserByEmail(services, "Nobody@Example.com"),
      "not_found",
      "There is no user with the email nobody@example.com. Check the address, or create the user with rehook user create.",
    );
    await expectRefused(requireUserByEmail(services, "nobody"), "validation_failed", /valid email address/);
  });
});
