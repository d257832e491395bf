import { judgeChatPost, type ChatPostAnswer, type ChatPostVerdict } from "../chat-messages.js";
import type { AlertChannel } from "./rules.js";

/**
 * Reads a channel's answer to an alert. Slack-compatible hooks are judged as chat
 * notifications are (their error strings say which ones are fatal). Discord, Teams and plain
 * webhooks say it by status: a hook that is gone or refuses us (401, 403, 404, 410) pauses the
 * rule until it is saved again; 429 and 5xx are retried; other 4xx drop this alert only.
 */
export function judgeAlertPost(channel: Exclude<AlertChannel, "email">, answer: ChatPostAnswer, failures: number): ChatPostVerdict {
  const verdict = judgeChatPost(answer, failures);
  if (channel === "slack" || verdict.kind !== "rejected") return verdict;
  if ([401, 403, 404, 410].includes(answer.status ?? 0)) {
    return { kind: "pause", reason: `the ${channel} webhook answered ${answer.status}: it was deleted or refuses Rehook; save the rule with a working URL` };
  }
  return { kind: "rejected", reason: `the ${channel} webhook refused the alert (HTTP ${answer.status})` };
}

/** How an SMTP send ended: sent, or the server's reply code (null: no answer) and message. */
export type EmailAnswer = { sent: true } | { sent: false; responseCode: number | null; error: string };

/**
 * Reads an SMTP send: 4xx replies and connection failures are transient (retried with
 * backoff, as chat posts are); a refused recipient (550, 551, 553) pauses the rule; other 5xx
 * drop this alert only.
 */
export function judgeEmailSend(answer: EmailAnswer, failures: number, maxFailures = 5): ChatPostVerdict {
  if (answer.sent) return { kind: "posted" };
  const code = answer.responseCode;
  if (code === null || (code >= 400 && code < 500)) {
    const reason = code === null ? `could not reach the mail server: ${answer.error}` : `the mail server answered ${code}: ${answer.error}`;
    if (failures + 1 >= maxFailures) return { kind: "give_up", reason: `${reason} (gave up after ${maxFailures} attempts)` };
    return { kind: "retry", afterMs: 1000 * 2 ** failures, failures: failures + 1, reason };
  }
  if ([550, 551, 553].includes(code)) return { kind: "pause", reason: `the mail server refused the recipient (${code}): ${answer.error}; save the rule with a working address` };
  return { kind: "rejected", reason: `the mail server refused the alert (${code}): ${answer.error}` };
}
