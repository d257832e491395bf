import { describe, expect, it } from "vitest";
import { inviteAccountsRefusal, inviteCreatesAccounts, ROLES, type Inviter } from "../src/index.js";

// Who may let a newcomer in under each SIGNUP mode: the operator's choice holds whatever
// team the link is for (every user owns a personal team, and so may make links).

const inviters = (overrides: Partial<Inviter> = {}): Inviter[] =>
  [true, false].flatMap((serverAdmin) =>
    [true, false].flatMap((operatorTeam) => [...ROLES, null].map((role) => ({ serverAdmin, operatorTeam, role, ...overrides }))),
  );

describe("an invite creates an account", () => {
  it("open: from anyone", () => {
    for (const inviter of inviters()) expect(inviteCreatesAccounts("open", inviter)).toBe(true);
  });

  it("closed: from a server admin only", () => {
    for (const inviter of inviters()) expect(inviteCreatesAccounts("closed", inviter), JSON.stringify(inviter)).toBe(inviter.serverAdmin);
  });

  it("invite: from a server admin, or an admin or owner of a team an operator made (not any shared team)", () => {
    for (const inviter of inviters()) {
      const allowed = inviter.serverAdmin || (inviter.operatorTeam && (inviter.role === "admin" || inviter.role === "owner"));
      expect(inviteCreatesAccounts("invite", inviter), JSON.stringify(inviter)).toBe(allowed);
    }
  });

  it("says why not, and what someone with an account does", () => {
    expect(inviteAccountsRefusal("closed")).toMatch(/only adds people who already have a Rehook account.*only an invite from a server admin.*log in, then open the link again/);
    expect(inviteAccountsRefusal("invite")).toMatch(/by invitation from a server admin or an admin of a team the server's operator made/);
  });
});
