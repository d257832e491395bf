import { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, type AuditActorType } from "@rehook/core/browser";

/** The audit log's filters as the page's query string carries them (unknown values are dropped, not refused). */
export interface AuditFilter {
  actorType?: AuditActorType;
  /** One user's or API key's entries (the actor column links here). */
  actorId?: string;
  action?: string;
  targetId?: string;
  from?: string;
  to?: string;
}

const isActorType = (value: string): value is AuditActorType => (AUDIT_ACTOR_TYPES as readonly string[]).includes(value);
// A whole action, or every action on a kind of target ("endpoint.").
const isActionFilter = (value: string) => (AUDIT_ACTIONS as readonly string[]).includes(value) || AUDIT_ACTIONS.some((action) => action.startsWith(value) && value.endsWith("."));
const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value));

/** The filter in a request's URL, each field kept only when it is one the list takes. */
export function readAuditFilter(url: URL): AuditFilter {
  const text = (name: string) => url.searchParams.get(name)?.trim() ?? "";
  const filter: AuditFilter = {};
  const actorType = text("actor_type");
  if (isActorType(actorType)) filter.actorType = actorType;
  const actorId = text("actor_id");
  if (actorId && actorId.length <= 64) filter.actorId = actorId;
  const action = text("action");
  if (isActionFilter(action)) filter.action = action;
  const targetId = text("target_id");
  if (targetId && targetId.length <= 64) filter.targetId = targetId;
  if (isDay(text("from"))) filter.from = text("from");
  if (isDay(text("to"))) filter.to = text("to");
  return filter;
}

/** The filter as the audit.list input: whole UTC days, `to` inclusive. */
export function auditListInput(filter: AuditFilter) {
  return {
    ...(filter.actorType ? { actorType: filter.actorType } : {}),
    ...(filter.actorId ? { actorId: filter.actorId } : {}),
    ...(filter.action ? { action: filter.action } : {}),
    ...(filter.targetId ? { targetId: filter.targetId } : {}),
    ...(filter.from ? { from: new Date(`${filter.from}T00:00:00Z`) } : {}),
    ...(filter.to ? { to: new Date(Date.parse(`${filter.to}T00:00:00Z`) + 86_400_000) } : {}),
  };
}

/** The filter back as query parameters (for the export link and the next page). */
export function auditFilterParams(filter: AuditFilter, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams();
  if (filter.actorType) params.set("actor_type", filter.actorType);
  if (filter.actorId) params.set("actor_id", filter.actorId);
  if (filter.action) params.set("action", filter.action);
  if (filter.targetId) params.set("target_id", filter.targetId);
  if (filter.from) params.set("from", filter.from);
  if (filter.to) params.set("to", filter.to);
  for (const [name, value] of Object.entries(extra)) params.set(name, value);
  const query = params.toString();
  return query ? `?${query}` : "";
}
