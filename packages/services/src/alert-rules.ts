import {
  ALERT_CHANNELS,
  ALERT_TRIGGERS,
  auditChanges,
  withoutSecret,
  auditFields,
  checkChatHookUrl,
  checkDestinationUrl,
  emailSchema,
  generateSigningSecret,
  isThresholdTrigger,
  MAX_ALERT_RULES_PER_TEAM,
  testAlert,
  UserError,
  uuidv7,
  withPrivateDestinationHint,
  type AlertChannel,
  type AlertTrigger,
} from "@rehook/core";
import { countAlertRules, endpointNames, enqueueJobWith, findAlertRule, findOwnedEndpoint, listAlertRules, recordAlertResult, ALERT_JOB, AlertRuleEntity, EndpointEntity, type AlertRule, type EntityManager } from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";

export interface AlertRuleView {
  id: string;
  name: string;
  trigger: AlertTrigger;
  /** Percent, for health_low and signature_invalid_rate. */
  threshold: number | null;
  /** One endpoint (its id and name), or every endpoint of the team (null). */
  endpoint: { id: string; name: string } | null;
  channel: AlertChannel;
  /** The channel's URL (a secret: whoever holds it can post there), or the email address. */
  target: string;
  /** The webhook channel's whsec_ signing secret (for the receiver to check the Standard Webhooks signature). */
  secret: string | null;
  enabled: boolean;
  /** Why posting stopped (the channel is gone or refuses us), until the rule is saved again. */
  pausedReason: string | null;
  lastResult: { at: Date; ok: boolean; text: string } | null;
  createdAt: Date;
}

/** The rules as views, their endpoints named (one query for all). */
async function views(em: EntityManager, rules: AlertRule[]): Promise<AlertRuleView[]> {
  const names = await endpointNames(em, [...new Set(rules.flatMap((rule) => (rule.endpoint ? [rule.endpoint.id] : [])))]);
  return rules.map((rule) => view(rule, names));
}

/** One rule as its view (the entity as written: nothing is read back). */
async function viewOf(em: EntityManager, rule: AlertRule): Promise<AlertRuleView> {
  return (await views(em, [rule]))[0]!;
}

function view(rule: AlertRule, names: Map<string, string>): AlertRuleView {
  return {
    id: rule.id,
    name: rule.name,
    trigger: rule.trigger as AlertTrigger,
    threshold: rule.threshold,
    endpoint: rule.endpoint ? { id: rule.endpoint.id, name: names.get(rule.endpoint.id) ?? "" } : null,
    channel: rule.channel as AlertChannel,
    target: rule.target,
    secret: rule.secret,
    enabled: rule.enabled,
    pausedReason: rule.pausedReason,
    lastResult: rule.lastResultAt ? { at: rule.lastResultAt, ok: rule.lastResultOk ?? false, text: rule.lastResult ?? "" } : null,
    createdAt: rule.createdAt,
  };
}

const ruleFields = {
  name: z.string().trim().min(1, "Name the rule.").max(100, "A rule's name is at most 100 characters.").describe("Shown on the page and in the audit log"),
  trigger: z.enum(ALERT_TRIGGERS).describe("What the rule watches"),
  threshold: z.number().int().min(1).max(100).nullable().describe("Percent, for health_low (alert below it) and signature_invalid_rate (alert above it); ignored otherwise"),
  endpointId: z.string().nullable().describe("One endpoint of the team, or null for every endpoint"),
  channel: z.enum(ALERT_CHANNELS).describe("Where alerts go"),
  target: z.string().trim().min(1, "Enter where to send the alerts.").max(2048).describe("The channel's URL, or an email address for email"),
  enabled: z.boolean().describe("Off: nothing is raised or sent"),
};

/** A new rule: threshold and endpoint default to none (every endpoint), enabled to true. */
export const alertRuleInput = z.object({
  ...ruleFields,
  threshold: ruleFields.threshold.default(null),
  endpointId: ruleFields.endpointId.default(null),
  enabled: ruleFields.enabled.default(true),
});
export type AlertRuleInput = z.input<typeof alertRuleInput>;

/** A change to a rule: only the fields given change. */
export const alertRulePatch = z.object(ruleFields).partial();
export type AlertRulePatch = z.input<typeof alertRulePatch>;

type RuleContext = Pick<ServiceContext, "orm" | "chatHooksBase" | "addressPolicy" | "emailAlerts">;

/** The channel's target as stored, or why it cannot be used. */
function checkedTarget(ctx: RuleContext, channel: AlertChannel, raw: string): string {
  const refuse = (reason: string): never => {
    throw new UserError("validation_failed", reason);
  };
  switch (channel) {
    case "slack": {
      const checked = checkChatHookUrl(raw, ctx.chatHooksBase);
      return checked.ok ? checked.url : refuse(`Slack webhook URL refused: ${withPrivateDestinationHint(checked.reason)}`);
    }
    case "email": {
      if (!ctx.emailAlerts) refuse("Email alerts need SMTP_URL on the server. Ask its operator, or choose another channel.");
      const email = emailSchema.safeParse(raw);
      return email.success ? email.data : refuse(`"${raw.slice(0, 100)}" is not an email address.`);
    }
    default: {
      const checked = checkDestinationUrl(raw, ctx.addressPolicy);
      return checked.ok ? checked.url : refuse(`${channel === "webhook" ? "Webhook" : channel === "discord" ? "Discord webhook" : "Teams webhook"} URL refused: ${withPrivateDestinationHint(checked.reason)}`);
    }
  }
}

/** Checks a rule's fields together: the threshold goes with the rate triggers only, the endpoint must be the team's. */
async function checkedRule(ctx: RuleContext, em: EntityManager, teamId: string, input: AlertRuleInput) {
  const rule = parseInput(alertRuleInput, input);
  if (isThresholdTrigger(rule.trigger) && rule.threshold === null) {
    throw new UserError("validation_failed", rule.trigger === "health_low" ? "Give the health threshold: alert when less than this percent of deliveries succeed." : "Give the threshold: alert when more than this percent of signatures are invalid.");
  }
  const threshold = isThresholdTrigger(rule.trigger) ? rule.threshold : null;
  const endpoint = rule.endpointId ? await findOwnedEndpoint(em, teamId, { id: rule.endpointId }) : null;
  if (rule.endpointId && !endpoint) throw new UserError("not_found", "That endpoint does not exist in this team. Choose another, or every endpoint.");
  return { ...rule, threshold, endpoint, target: checkedTarget(ctx, rule.channel, rule.target) };
}

const AUDITED = { fields: ["name", "trigger", "threshold", "endpointId", "channel", "target", "enabled"] as const, secrets: ["target"] as const };
const auditView = (rule: AlertRuleView) => ({ ...rule, endpointId: rule.endpoint?.id ?? null });

export async function listAlertRulesOf(ctx: Pick<ServiceContext, "orm">, input: { teamId: string }): Promise<AlertRuleView[]> {
  const em = ctx.orm.em.fork();
  return views(em, await listAlertRules(em, input.teamId));
}

export async function createAlertRule(ctx: RuleContext, input: { teamId: string; by?: AuditedBy } & AlertRuleInput): Promise<AlertRuleView> {
  const { teamId, by, ...fields } = input;
  return ctx.orm.em.fork().transactional(async (em) => {
    const rule = await checkedRule(ctx, em, teamId, fields);
    if ((await countAlertRules(em, teamId)) >= MAX_ALERT_RULES_PER_TEAM) {
      throw new UserError("conflict", `A team has at most ${MAX_ALERT_RULES_PER_TEAM} alert rules. Delete one you no longer need first.`);
    }
    const entity = em.create(AlertRuleEntity, {
      id: uuidv7(),
      team: teamId,
      name: rule.name,
      trigger: rule.trigger,
      threshold: rule.threshold,
      endpoint: rule.endpoint?.id ?? null,
      channel: rule.channel,
      target: rule.target,
      // The webhook channel signs every alert (Standard Webhooks) with a secret of its own.
      secret: rule.channel === "webhook" ? generateSigningSecret() : null,
      enabled: rule.enabled,
      nextPostAt: new Date(),
      failures: 0,
      pausedReason: null,
      lastResultAt: null,
      lastResultOk: null,
      lastResult: null,
      firing: [],
      retryThrough: null,
      createdAt: new Date(),
    } as never);
    await em.persistAndFlush(entity);
    const created = await viewOf(em, entity as AlertRule);
    await recordAudit(em, by, { teamId, action: "alert_rule.create", target: { type: "alert_rule", id: created.id, name: created.name }, changes: auditFields(auditView(created), AUDITED) });
    return created;
  });
}

/**
 * Changes the fields given, and checks the rule as a whole again. Saving resumes a paused
 * rule (as saving chat settings does): its failures are forgotten and what is due is posted again.
 */
export async function updateAlertRule(ctx: RuleContext, input: { teamId: string; by?: AuditedBy; id: string } & AlertRulePatch): Promise<AlertRuleView> {
  const { teamId, by, id, ...fields } = input;
  const patch = parseInput(alertRulePatch, fields);
  return ctx.orm.em.fork().transactional(async (em) => {
    const found = await findAlertRule(em, teamId, id);
    if (!found) throw new UserError("not_found", "That alert rule does not exist in this team.");
    const before = await viewOf(em, found);
    const stored = { name: before.name, trigger: before.trigger, threshold: before.threshold, endpointId: before.endpoint?.id ?? null, channel: before.channel, target: before.target, enabled: before.enabled };
    const rule = await checkedRule(ctx, em, teamId, { ...stored, ...Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) });
    const channelChanged = rule.channel !== found.channel;
    Object.assign(found, {
      name: rule.name,
      trigger: rule.trigger,
      threshold: rule.threshold,
      endpoint: rule.endpoint ? em.getReference(EndpointEntity, rule.endpoint.id) : null,
      channel: rule.channel,
      target: rule.target,
      secret: rule.channel === "webhook" ? (channelChanged || !found.secret ? generateSigningSecret() : found.secret) : null,
      enabled: rule.enabled,
      pausedReason: null,
      failures: 0,
      // A new trigger or threshold measures afresh.
      firing: rule.trigger === found.trigger && rule.threshold === found.threshold ? found.firing : [],
    });
    await em.flush();
    const after = await viewOf(em, found);
    const changes = auditChanges(auditView(before), auditView(after), AUDITED);
    if (changes) await recordAudit(em, by, { teamId, action: "alert_rule.update", target: { type: "alert_rule", id, name: after.name }, changes });
    await enqueueJobWith(em, { kind: ALERT_JOB, key: id });
    return after;
  });
}

export async function deleteAlertRule(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy; id: string }): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    const found = await findAlertRule(em, input.teamId, input.id);
    if (!found) throw new UserError("not_found", "That alert rule does not exist in this team.");
    await recordAudit(em, input.by, { teamId: input.teamId, action: "alert_rule.delete", target: { type: "alert_rule", id: found.id, name: found.name } });
    await em.removeAndFlush(found);
  });
}

/**
 * Sends a test alert through the rule's channel now, records the result as the rule's last
 * one, and says how it went. It neither pauses the rule nor counts as a failure: the button
 * is for trying a channel out. Tests are paced per rule, per team and per user (`by`, every
 * team together), and an email test counts against the team's and the server's hourly email
 * (see AlertSendLimits): past a limit, `rate_limited` with how long to wait, and nothing is sent.
 */
export async function sendTestAlert(ctx: Pick<ServiceContext, "orm" | "alerts" | "baseUrl" | "now">, input: { teamId: string; by?: AuditedBy; id: string }): Promise<{ ok: boolean; message: string }> {
  const rule = await findAlertRule(ctx.orm.em.fork(), input.teamId, input.id);
  if (!rule) throw new UserError("not_found", "That alert rule does not exist in this team.");
  if (!ctx.alerts) throw new UserError("unavailable", "Alerts are not running on this server.");
  const nowMs = (ctx.now ?? Date.now)();
  const alert = testAlert({ ruleName: rule.name, kind: rule.trigger as AlertTrigger, at: new Date(nowMs), url: `${ctx.baseUrl}/settings#alerts` });
  const asker = { userId: input.by?.userId ?? null, nowMs };
  const tried = await ctx.alerts.sendTest({ id: rule.id, teamId: input.teamId, channel: rule.channel, target: rule.target, secret: rule.secret }, alert, asker);
  if (!tried.sent) throw new UserError("rate_limited", tried.message, { retryAfterSeconds: Math.ceil(tried.refusal.retryAfterMs / 1000) });
  const verdict = tried.verdict;
  const result = verdict.kind === "posted" ? { ok: true, text: "test delivered" } : { ok: false, text: `test failed: ${verdict.reason}` };
  await ctx.orm.em.fork().transactional(async (em) => {
    await recordAlertResult(em, rule.id, result);
    await recordAudit(em, input.by, { teamId: input.teamId, action: "alert_rule.test", target: { type: "alert_rule", id: rule.id, name: rule.name }, changes: { result: withoutSecret(result.text, rule.target, "[the rule's target]") } });
  });
  return { ok: result.ok, message: verdict.kind === "posted" ? "Test alert sent: check the channel." : verdict.reason };
}
