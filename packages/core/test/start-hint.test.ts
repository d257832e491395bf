import { describe, expect, it } from "vitest";
import { startHint } from "../src/signup.js";

describe("startHint", () => {
  const url = "https://hooks.example.com";

  it("sends the first user to the sign-up page when anyone may sign up", () => {
    expect(startHint(url, { signup: "open", usersExist: false })).toBe("open https://hooks.example.com/signup to create the first user");
  });

  it("sends them to the CLI when sign-up is closed or by invitation (there is nobody to invite yet)", () => {
    for (const signup of ["closed", "invite"] as const) {
      expect(startHint(url, { signup, usersExist: false })).toBe(
        "create the first user with rehook user create --email <email> --password <password>, then open https://hooks.example.com",
      );
    }
  });

  it("says only where the dashboard is once a user exists", () => {
    for (const signup of ["open", "closed", "invite"] as const) expect(startHint(url, { signup, usersExist: true })).toBe("open https://hooks.example.com");
  });
});
