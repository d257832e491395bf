import { z } from "zod";
import { alertRuleInput, alertRulePatch, createAlertRule, deleteAlertRule, listAlertRulesOf, sendTestAlert, updateAlertRule, type AlertRuleView } from "../alert-rules.js";
import { defineContract } from "./contract.js";

// Alert rules: what the team is told about and where. Admins only: a rule's target is a
// channel's secret URL, and its webhook secret signs what it sends.
const rule = z.custom<AlertRuleView>();
const byId = z.object({ id: z.string() });

export const listAlertRulesContract = defineContract({
  name: "alerts.list",
  summary: "The team's alert rules, oldest first, with each one's last delivery result",
  kind: "query",
  role: "admin",
  input: z.object({}).optional(),
  output: z.array(rule),
  errors: [],
  rest: { method: "GET", path: "/alert-rules", status: 200, operationId: "listAlertRules", summary: "The team's alert rules (admin keys), oldest first, each with its last delivery result" },
  run: (services, actor) => listAlertRulesOf(services, { teamId: actor.teamId }),
});

export const createAlertRuleContract = defineContract({
  name: "alerts.create",
  summary: "A new alert rule: a trigger (with a threshold for the rates), one endpoint or all, and a channel with its URL or email address",
  kind: "mutation",
  role: "admin",
  input: alertRuleInput,
  output: rule,
  errors: ["validation_failed", "not_found", "conflict"],
  rest: {
    method: "POST",
    path: "/alert-rules",
    status: 201,
    operationId: "createAlertRule",
    summary: "Add an alert rule (admin keys, at most 50 per team): a trigger, one endpoint or all, and a channel; the webhook channel's whsec_ secret is in the answer",
  },
  run: (services, actor, input) => createAlertRule(services, { teamId: actor.teamId, by: actor, ...input }),
});

export const updateAlertRuleContract = defineContract({
  name: "alerts.update",
  summary: "Changes an alert rule's fields (only those given) and resumes it if its channel had paused it",
  kind: "mutation",
  role: "admin",
  input: alertRulePatch.extend({ id: z.string() }),
  output: rule,
  errors: ["validation_failed", "not_found"],
  rest: { method: "PATCH", path: "/alert-rules/{id}", status: 200, operationId: "updateAlertRule", summary: "Change an alert rule (only the fields given); saving resumes a paused rule", params: { id: "id" } },
  run: (services, actor, input) => updateAlertRule(services, { teamId: actor.teamId, by: actor, ...input }),
});

export const deleteAlertRuleContract = defineContract({
  name: "alerts.delete",
  summary: "Deletes an alert rule and what it had not posted yet",
  kind: "mutation",
  role: "admin",
  input: byId,
  output: z.null(),
  errors: ["not_found"],
  rest: { method: "DELETE", path: "/alert-rules/{id}", status: 204, operationId: "deleteAlertRule", summary: "Delete an alert rule and what it had not sent yet", params: { id: "id" } },
  run: async (services, actor, input) => {
    await deleteAlertRule(services, { teamId: actor.teamId, by: actor, id: input.id });
    return null;
  },
});

export const sendTestAlertContract = defineContract({
  name: "alerts.sendTest",
  summary: "Sends a test alert through the rule's channel now; answers how it went and records it as the rule's last result",
  kind: "mutation",
  role: "admin",
  input: byId,
  output: z.object({ ok: z.boolean(), message: z.string() }),
  errors: ["not_found"],
  rest: { method: "POST", path: "/alert-rules/{id}/test", status: 200, operationId: "testAlertRule", summary: "Send a test alert through the rule's channel now: how it went, also kept as the rule's last result", params: { id: "id" } },
  run: (services, actor, input) => sendTestAlert(services, { teamId: actor.teamId, by: actor, id: input.id }),
});
