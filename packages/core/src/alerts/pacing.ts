/**
 * What alert rules may send. Every button that sends outward is an amplifier (a loop of
 * "Send a test" mailed whatever address a rule names, 25 of 25), and one account can hold many
 * teams, or delete a team and make another, so the limits are per rule, per team, per user
 * and for the whole server:
 * - a rule's (or a team's chat hook's) "Send a test" at most once per `testIntervalMs`;
 * - a team's tests, every channel together, at most `testsPerTeamPerHour` in any hour;
 * - one user's tests, every team together, at most `testsPerUserPerHour` in any hour;
 * - a team's email, alerts and tests together, at most `emailsPerTeamPerHour` in any hour;
 * - the server's email, every team together, at most `emailsPerHour` in any hour (the
 *   backstop that many sign-ups cannot multiply).
 * Windows slide (the last hour, not the clock hour). The database keeps the ledger and
 * decides (see @rehook/db reserveAlertSend), so the limits hold across instances, and its rows
 * outlive the team and the rule they were sent for.
 */
export interface AlertSendLimits {
  testIntervalMs: number;
  testsPerTeamPerHour: number;
  testsPerUserPerHour: number;
  emailsPerTeamPerHour: number;
  emailsPerHour: number;
}

export const ALERT_TEST_INTERVAL_SECONDS = 30;
export const ALERT_TESTS_PER_TEAM_PER_HOUR = 20;
export const ALERT_TESTS_PER_USER_PER_HOUR = 20;
/** ALERT_EMAILS_PER_TEAM_PER_HOUR's default. */
export const DEFAULT_ALERT_EMAILS_PER_TEAM_PER_HOUR = 30;
/** ALERT_EMAILS_PER_HOUR's default. */
export const DEFAULT_ALERT_EMAILS_PER_HOUR = 500;
export const ALERT_SEND_WINDOW_MS = 60 * 60_000;

export const DEFAULT_ALERT_SEND_LIMITS: AlertSendLimits = {
  testIntervalMs: ALERT_TEST_INTERVAL_SECONDS * 1000,
  testsPerTeamPerHour: ALERT_TESTS_PER_TEAM_PER_HOUR,
  testsPerUserPerHour: ALERT_TESTS_PER_USER_PER_HOUR,
  emailsPerTeamPerHour: DEFAULT_ALERT_EMAILS_PER_TEAM_PER_HOUR,
  emailsPerHour: DEFAULT_ALERT_EMAILS_PER_HOUR,
};

/** Which limit refused a send, and when it would be allowed (ms from now, at least 1 s). */
export interface AlertSendRefusal {
  limit: "rule_test" | "team_tests" | "user_tests" | "team_emails" | "server_emails";
  retryAfterMs: number;
}

/** The sends being asked for, and what the ledger holds of the last hour (times in ms, any order). */
export interface AlertSendRequest {
  test: boolean;
  email: boolean;
  nowMs: number;
  /** When this rule (or chat hook) was last tested (tests only). */
  lastTestAtMs: number | null;
  /** The team's tests. */
  testsSentAtMs: readonly number[];
  /** The acting user's tests, every team together (none for a send no user asked for). */
  userTestsSentAtMs: readonly number[];
  /** The team's emails. */
  emailsSentAtMs: readonly number[];
  /** Every email of the server. */
  serverEmailsSentAtMs: readonly number[];
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
  const checks: Array<[AlertSendRefusal["limit"], number | null]> = [];
  if (request.test) {
    const sinceLast = request.lastTestAtMs === null ? Infinity : request.nowMs - request.lastTestAtMs;
    checks.push(["rule_test", sinceLast < limits.testIntervalMs ? request.lastTestAtMs! + limits.testIntervalMs - request.nowMs : null]);
    checks.push(["team_tests", windowWait(request.testsSentAtMs, limits.testsPerTeamPerHour, request.nowMs)]);
    checks.push(["user_tests", windowWait(request.userTestsSentAtMs, limits.testsPerUserPerHour, request.nowMs)]);
  }
  if (request.email) {
    checks.push(["team_emails", windowWait(request.emailsSentAtMs, limits.emailsPerTeamPerHour, request.nowMs)]);
    checks.push(["server_emails", windowWait(request.serverEmailsSentAtMs, limits.emailsPerHour, request.nowMs)]);
  }
  const refused = checks.find(([, wait]) => wait !== null);
  return refused ? { limit: refused[0], retryAfterMs: Math.max(1000, Math.ceil(refused[1]!)) } : null;
}

/** "25 s", "4 min": how long to wait, rounded up. */
function waitText(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}

/** Why the hour's emails are used up (a refused email test, a held alert). */
function emailLimitText(refusal: AlertSendRefusal, limits: AlertSendLimits): string {
  return refusal.limit === "server_emails"
    ? `this server has sent ${limits.emailsPerHour} alert emails in the last hour (every team together), its limit`
    : `this team has sent ${limits.emailsPerTeamPerHour} alert emails in the last hour (alerts and tests together), its limit`;
}

/** What a refused send says (the test button's answer); `tested` names what was tested ("rule", "chat hook"). */
export function alertSendRefusalMessage(refusal: AlertSendRefusal, limits: AlertSendLimits, tested = "rule"): string {
  const wait = waitText(refusal.retryAfterMs);
  switch (refusal.limit) {
    case "rule_test":
      return `This ${tested} was tested less than ${waitText(limits.testIntervalMs)} ago: a ${tested} sends at most one test every ${waitText(limits.testIntervalMs)}. Try again in ${wait}.`;
    case "team_tests":
      return `This team has sent ${limits.testsPerTeamPerHour} test alerts in the last hour, its limit. Try again in ${wait}.`;
    case "user_tests":
      return `You have sent ${limits.testsPerUserPerHour} test alerts in the last hour (every team together), your limit. Try again in ${wait}.`;
    case "team_emails":
    case "server_emails": {
      const text = emailLimitText(refusal, limits);
      return `${text[0]!.toUpperCase()}${text.slice(1)}. Try again in ${wait}.`;
    }
  }
}

/** A rule's last result while its email alerts wait for the hour to have room. */
export function heldAlertMessage(refusal: AlertSendRefusal, limits: AlertSendLimits): string {
  return `held: ${emailLimitText(refusal, limits)}; the alerts due go out together in ${waitText(refusal.retryAfterMs)}`;
}
