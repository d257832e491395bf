/**
 * What one team may send through its alert rules. Every button that sends outward is an
 * amplifier (a loop of "Send a test" mailed whatever address a rule names, 25 of 25), so:
 * - a rule's "Send a test" at most once per `testIntervalMs`;
 * - a team's tests, every channel together, at most `testsPerTeamPerHour` in any hour;
 * - a team's email, alerts and tests together, at most `emailsPerTeamPerHour` in any hour.
 * Windows slide (the last hour, not the clock hour). The database keeps the ledger and
 * decides (see @rehook/db reserveAlertSend), so the limits hold across instances.
 */
export interface AlertSendLimits {
  testIntervalMs: number;
  testsPerTeamPerHour: number;
  emailsPerTeamPerHour: number;
}

export const ALERT_TEST_INTERVAL_SECONDS = 30;
export const ALERT_TESTS_PER_TEAM_PER_HOUR = 20;
/** ALERT_EMAILS_PER_TEAM_PER_HOUR's default. */
export const DEFAULT_ALERT_EMAILS_PER_TEAM_PER_HOUR = 30;
export const ALERT_SEND_WINDOW_MS = 60 * 60_000;

export const DEFAULT_ALERT_SEND_LIMITS: AlertSendLimits = {
  testIntervalMs: ALERT_TEST_INTERVAL_SECONDS * 1000,
  testsPerTeamPerHour: ALERT_TESTS_PER_TEAM_PER_HOUR,
  emailsPerTeamPerHour: DEFAULT_ALERT_EMAILS_PER_TEAM_PER_HOUR,
};

/** Which limit refused a send, and when it would be allowed (ms from now, at least 1 s). */
export interface AlertSendRefusal {
  limit: "rule_test" | "team_tests" | "team_emails";
  retryAfterMs: number;
}

/** The sends being asked for, and what the ledger holds of the last hour (times in ms, any order). */
export interface AlertSendRequest {
  test: boolean;
  email: boolean;
  nowMs: number;
  /** When this rule's last test was sent (tests only). */
  lastTestAtMs: number | null;
  testsSentAtMs: readonly number[];
  emailsSentAtMs: readonly number[];
}

/** When a window holding `sentAtMs` has room for one more under `cap`: now, or when enough of them age out. */
function windowWait(sentAtMs: readonly number[], cap: number, nowMs: number): number | null {
  const inWindow = sentAtMs.filter((at) => at > nowMs - ALERT_SEND_WINDOW_MS).sort((a, b) => a - b);
  if (inWindow.length < cap) return null;
  // The send that must age out for one slot to free.
  return inWindow[inWindow.length - cap]! + ALERT_SEND_WINDOW_MS - nowMs;
}

/** Null: the send may go (and is counted); else the first limit that refuses it. */
export function judgeAlertSend(request: AlertSendRequest, limits: AlertSendLimits): AlertSendRefusal | null {
  const refuse = (limit: AlertSendRefusal["limit"], waitMs: number): AlertSendRefusal => ({ limit, retryAfterMs: Math.max(1000, Math.ceil(waitMs)) });
  if (request.test) {
    if (request.lastTestAtMs !== null && request.nowMs - request.lastTestAtMs < limits.testIntervalMs) {
      return refuse("rule_test", request.lastTestAtMs + limits.testIntervalMs - request.nowMs);
    }
    const wait = windowWait(request.testsSentAtMs, limits.testsPerTeamPerHour, request.nowMs);
    if (wait !== null) return refuse("team_tests", wait);
  }
  if (request.email) {
    const wait = windowWait(request.emailsSentAtMs, limits.emailsPerTeamPerHour, request.nowMs);
    if (wait !== null) return refuse("team_emails", wait);
  }
  return null;
}

/** "25 s", "4 min": how long to wait, rounded up. */
function waitText(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}

/** What a refused send says (the test button's answer, a held alert's last result). */
export function alertSendRefusalMessage(refusal: AlertSendRefusal, limits: AlertSendLimits): string {
  const wait = waitText(refusal.retryAfterMs);
  switch (refusal.limit) {
    case "rule_test":
      return `This rule was tested less than ${waitText(limits.testIntervalMs)} ago: a rule sends at most one test every ${waitText(limits.testIntervalMs)}. Try again in ${wait}.`;
    case "team_tests":
      return `This team has sent ${limits.testsPerTeamPerHour} test alerts in the last hour, its limit. Try again in ${wait}.`;
    case "team_emails":
      return `This team has sent ${limits.emailsPerTeamPerHour} alert emails in the last hour (alerts and tests together), its limit. Try again in ${wait}.`;
  }
}

/** A rule's last result while its email alerts wait for the team's hour to have room. */
export function heldAlertMessage(refusal: AlertSendRefusal, limits: AlertSendLimits): string {
  return `held: this team has sent ${limits.emailsPerTeamPerHour} alert emails in the last hour (alerts and tests together), its limit; the alerts due go out together in ${waitText(refusal.retryAfterMs)}`;
}
