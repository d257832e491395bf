import type { AlertRuleView } from "@rehook/services";

/** An alert rule in the wire spelling (snake_case, ISO times). */
export function restAlertRule(rule: AlertRuleView) {
  return {
    id: rule.id,
    name: rule.name,
    trigger: rule.trigger,
    threshold: rule.threshold,
    endpoint: rule.endpoint,
    channel: rule.channel,
    target: rule.target,
    secret: rule.secret,
    enabled: rule.enabled,
    paused_reason: rule.pausedReason,
    last_result: rule.lastResult ? { at: rule.lastResult.at.toISOString(), ok: rule.lastResult.ok, text: rule.lastResult.text } : null,
    created_at: rule.createdAt.toISOString(),
  };
}

export const restAlertRuleList = (rules: AlertRuleView[]) => ({ data: rules.map(restAlertRule) });
