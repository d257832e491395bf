import { describe, expect, it } from "vitest";
import { alertSendRefusalMessage, DEFAULT_ALERT_SEND_LIMITS, heldAlertMessage, judgeAlertSend, type AlertSendRequest } from "../src/index.js";

// The send limits of alert rules as pure rules, on a clock of the test's own: a rule's test
// interval, the team's tests and emails in a sliding hour, and how long each refusal waits.

const NOW = 10 * 3_600_000;
const limits = { testIntervalMs: 30_000, testsPerTeamPerHour: 3, testsPerUserPerHour: 4, emailsPerTeamPerHour: 2, emailsPerHour: 3 };
const request = (overrides: Partial<AlertSendRequest>): AlertSendRequest => ({ test: false, email: false, nowMs: NOW, lastTestAtMs: null, testsSentAtMs: [], userTestsSentAtMs: [], emailsSentAtMs: [], serverEmailsSentAtMs: [], ...overrides });

describe("alert send limits", () => {
  it("paces a rule's tests: refused for 30 s after the last, with the wait; allowed after", () => {
    expect(judgeAlertSend(request({ test: true, lastTestAtMs: NOW - 10_000 }), limits)).toEqual({ limit: "rule_test", retryAfterMs: 20_000 });
    expect(judgeAlertSend(request({ test: true, lastTestAtMs: NOW - 29_999 }), limits)).toEqual({ limit: "rule_test", retryAfterMs: 1_000 });
    expect(judgeAlertSend(request({ test: true, lastTestAtMs: NOW - 30_000 }), limits)).toBeNull();
  });

  it("counts a team's tests over the last hour, sliding: the wait is until the oldest that must go has aged out", () => {
    const tests = [NOW - 3_600_000, NOW - 50 * 60_000, NOW - 20 * 60_000, NOW - 5 * 60_000];
    // The first is an hour old: out of the window. Three remain, the cap.
    expect(judgeAlertSend(request({ test: true, testsSentAtMs: tests }), limits)).toEqual({ limit: "team_tests", retryAfterMs: 10 * 60_000 });
    expect(judgeAlertSend(request({ test: true, testsSentAtMs: tests.slice(0, 3) }), limits)).toBeNull();
    // Tests of the team's other channels count; emails alone do not use the test count.
    expect(judgeAlertSend(request({ email: true, testsSentAtMs: tests }), limits)).toBeNull();
  });

  it("caps a team's email, alerts and tests together, and checks the test limits first", () => {
    const emails = [NOW - 40 * 60_000, NOW - 30 * 60_000];
    expect(judgeAlertSend(request({ email: true, emailsSentAtMs: emails }), limits)).toEqual({ limit: "team_emails", retryAfterMs: 20 * 60_000 });
    expect(judgeAlertSend(request({ test: true, email: true, emailsSentAtMs: emails }), limits)).toEqual({ limit: "team_emails", retryAfterMs: 20 * 60_000 });
    expect(judgeAlertSend(request({ test: true, email: true, lastTestAtMs: NOW - 1_000, emailsSentAtMs: emails }), limits)?.limit).toBe("rule_test");
    // A lower cap than what the ledger holds (ALERT_EMAILS_PER_TEAM_PER_HOUR lowered): wait until enough have aged out (here all).
    expect(judgeAlertSend(request({ email: true, emailsSentAtMs: [...emails, NOW - 1_000] }), { ...limits, emailsPerTeamPerHour: 1 })).toEqual({ limit: "team_emails", retryAfterMs: 3_600_000 - 1_000 });
  });

  it("caps one user's tests over every team together, and the server's email over every team", () => {
    // Spread over teams: each team's count is low, the user's is at the cap.
    const userTests = [NOW - 50 * 60_000, NOW - 40 * 60_000, NOW - 30 * 60_000, NOW - 20 * 60_000];
    expect(judgeAlertSend(request({ test: true, testsSentAtMs: userTests.slice(0, 1), userTestsSentAtMs: userTests }), limits)).toEqual({ limit: "user_tests", retryAfterMs: 10 * 60_000 });
    // Many teams, each under its own cap: the server's hour is full.
    const serverEmails = [NOW - 45 * 60_000, NOW - 2_000, NOW - 1_000];
    expect(judgeAlertSend(request({ email: true, emailsSentAtMs: [], serverEmailsSentAtMs: serverEmails }), limits)).toEqual({ limit: "server_emails", retryAfterMs: 15 * 60_000 });
    expect(heldAlertMessage({ limit: "server_emails", retryAfterMs: 900_000 }, DEFAULT_ALERT_SEND_LIMITS)).toBe(
      "held: this server has sent 500 alert emails in the last hour (every team together), its limit; the alerts due go out together in 15 min",
    );
    expect(alertSendRefusalMessage({ limit: "user_tests", retryAfterMs: 90_000 }, DEFAULT_ALERT_SEND_LIMITS)).toBe(
      "You have sent 20 test alerts in the last hour (every team together), your limit. Try again in 90 s.",
    );
    expect(alertSendRefusalMessage({ limit: "rule_test", retryAfterMs: 5_000 }, DEFAULT_ALERT_SEND_LIMITS, "chat hook")).toBe(
      "This chat hook was tested less than 30 s ago: a chat hook sends at most one test every 30 s. Try again in 5 s.",
    );
  });

  it("says which limit, and how long to wait, in words", () => {
    expect(alertSendRefusalMessage({ limit: "rule_test", retryAfterMs: 12_400 }, DEFAULT_ALERT_SEND_LIMITS)).toBe(
      "This rule was tested less than 30 s ago: a rule sends at most one test every 30 s. Try again in 13 s.",
    );
    expect(alertSendRefusalMessage({ limit: "team_tests", retryAfterMs: 600_000 }, DEFAULT_ALERT_SEND_LIMITS)).toBe("This team has sent 20 test alerts in the last hour, its limit. Try again in 10 min.");
    expect(alertSendRefusalMessage({ limit: "team_emails", retryAfterMs: 61_000 }, DEFAULT_ALERT_SEND_LIMITS)).toBe(
      "This team has sent 30 alert emails in the last hour (alerts and tests together), its limit. Try again in 61 s.",
    );
    expect(heldAlertMessage({ limit: "team_emails", retryAfterMs: 1_800_000 }, DEFAULT_ALERT_SEND_LIMITS)).toBe(
      "held: this team has sent 30 alert emails in the last hour (alerts and tests together), its limit; the alerts due go out together in 30 min",
    );
  });
});
