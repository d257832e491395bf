import { describe, expect, it } from "vitest";
import { hashPassword, verifyPassword } from "../src/index.js";

const FAST = { N: 1024, r: 8, p: 1 }; // tests need not pay the production cost

describe("password hashing", () => {
  it("verifies the right password and refuses a wrong one", async () => {
    const hash = await hashPassword("correct horse battery", FAST);
    expect(await verifyPassword("correct horse battery", hash)).toBe(true);
    expect(await verifyPassword("correct horse batterY", hash)).toBe(false);
  });

  it("salts every hash", async () => {
    const [a, b] = await Promise.all([hashPassword("same", FAST), hashPassword("same", FAST)]);
    expect(a).not.toBe(b);
  });

  it("uses scrypt at OWASP's cost by default and never stores the password", async () => {
    const hash = await hashPassword("plain text password");
    expect(hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(hash).not.toContain("plain text password");
  });

  it("never verifies against a malformed hash", async () => {
    for (const stored of ["", "scrypt", "bcrypt$1$2$3$a$b", "scrypt$x$8$1$c2FsdA==$aGFzaA=="]) {
      expect(await verifyPassword("anything", stored)).toBe(false);
    }
  });
});
