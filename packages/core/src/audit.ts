/**
 * The audit log's vocabulary: who acted, what they did to what, and what changed. Entries are
 * written in the same transaction as the change they record and are never updated; what they
 * hold is chosen here, in one place, so that no secret, password, body or whole API key can
 * reach one (a secret field is recorded as "changed", never its value).
 */

export const AUDIT_ACTOR_TYPES = ["user", "api_key", "cli", "system"] as const;
export type AuditActorType = (typeof AUDIT_ACTOR_TYPES)[number];

/** Every action the log records, as `target.verb`. */
export const AUDIT_ACTIONS = [
  "endpoint.create",
  "endpoint.update",
  "endpoint.delete",
  "endpoint.secret_reveal",
  "endpoint.secret_rotate",
  "endpoint.resume",
  "endpoint.retry_failed",
  "destination.create",
  "destination.update",
  "destination.delete",
  "destination.resume",
  "destination.pause",
  "event.replay",
  "event.retry",
  "event.delete",
  "delivery.resolve",
  "events.export",
  "replay_job.create",
  "api_key.create",
  "api_key.revoke",
  "invite.create",
  "invite.use",
  "invite.revoke",
  "member.add",
  "member.role_change",
  "member.remove",
  "team.create",
  "team.rename",
  "team.delete",
  "notifications.update",
  "alert_rule.create",
  "alert_rule.update",
  "alert_rule.delete",
  "alert_rule.test",
  "user.create",
  "user.link_identity",
  "user.sign_in",
  "user.sign_in_failed",
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export function isAuditAction(value: string): value is AuditAction {
  return (AUDIT_ACTIONS as readonly string[]).includes(value);
}

export const AUDIT_TARGET_TYPES = ["endpoint", "destination", "event", "replay_job", "api_key", "invite", "member", "team", "notifications", "alert_rule", "user"] as const;
export type AuditTargetType = (typeof AUDIT_TARGET_TYPES)[number];

export interface AuditActor {
  type: AuditActorType;
  /** The user's id, or the API key's (null for the system, or an unknown email signing in). */
  id: string | null;
  /** The user's email, or the API key's name and prefix: what a reader recognises. */
  name: string | null;
}

export interface AuditTarget {
  type: AuditTargetType;
  id: string | null;
  name: string | null;
}

/** A changed field: its value before and after, or "changed" for a secret (neither value is kept). */
export type AuditChange = { before: unknown; after: unknown } | "changed";
/** What an action changed or carried, by field (snake_case, as the API names it). */
export type AuditChanges = Record<string, AuditChange | unknown>;

/** Where a request came from: the request id it was answered with and the client's address. */
export interface AuditOrigin {
  requestId: string | null;
  ip: string | null;
}

export interface AuditEntry {
  id: string;
  at: Date;
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  changes: AuditChanges | null;
  requestId: string | null;
  ip: string | null;
}

/** The system's own actor (retention, circuit breakers): no user or key. */
export const SYSTEM_ACTOR: AuditActor = Object.freeze({ type: "system", id: null, name: "Rehook" });

/** AUDIT_RETENTION_DAYS' default: a year. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

/** Most entries one page of the log lists. */
export const MAX_AUDIT_PAGE = 200;

/** Query values (tokens often ride there) as the log keeps them: hidden. */
export const HIDDEN_QUERY_VALUE = "[hidden]";

/**
 * A URL as the log keeps it: scheme, host, port and path, and the names of its query
 * parameters with their values hidden; user info and fragment dropped. Destination and replay
 * URLs are configuration the team sees anyway, but a token in a query string would otherwise
 * outlive its rotation here by the log's whole retention. Null stays null; a value that is no
 * URL is not kept.
 */
export function auditableUrl(value: string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "(not a URL)";
  }
  const names = [...new Set(url.searchParams.keys())];
  url.username = "";
  url.password = "";
  url.hash = "";
  url.search = "";
  const query = names.map((name) => `${encodeURIComponent(name)}=${HIDDEN_QUERY_VALUE}`).join("&");
  return query ? `${url.toString()}?${query}` : url.toString();
}

/** Text the log keeps (a provider's error) with every spelling of a secret it may echo replaced. */
export function withoutSecret(text: string, secret: string, placeholder: string): string {
  if (!secret) return text;
  const pattern = new RegExp(secret.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
  return text.replace(pattern, placeholder);
}

/** Which fields of a view the log compares or keeps; `secrets` say only "changed" or "set", `urls` keep no query values. */
export interface AuditedFields<T> {
  fields: readonly (keyof T & string)[];
  secrets?: readonly (keyof T & string)[];
  urls?: readonly (keyof T & string)[];
}

const kept = <T>(options: AuditedFields<T>, field: keyof T & string, value: unknown): unknown =>
  options.urls?.includes(field) && (typeof value === "string" || value === null) ? auditableUrl(value) : value;

const comparable = (value: unknown): string => JSON.stringify(value instanceof Date ? value.toISOString() : value ?? null);

/**
 * The fields that differ between two views of one thing, as { field: { before, after } }.
 * Fields named in `secrets` say "changed" when they differ and never carry a value; fields in
 * neither view are left out. Null when nothing changed.
 */
export function auditChanges<T extends object>(before: T, after: T, options: AuditedFields<T>): AuditChanges | null {
  const changes: AuditChanges = {};
  for (const field of options.fields) {
    const was: unknown = before[field];
    const is: unknown = after[field];
    if (comparable(was) === comparable(is)) continue;
    changes[snakeCase(field)] = options.secrets?.includes(field) ? "changed" : { before: kept(options, field, was ?? null), after: kept(options, field, is ?? null) };
  }
  return Object.keys(changes).length > 0 ? changes : null;
}

/** The fields a created thing starts with, as { field: value } (secrets as "set"). */
export function auditFields<T extends object>(value: T, options: AuditedFields<T>): AuditChanges {
  const fields: AuditChanges = {};
  for (const field of options.fields) {
    const given: unknown = value[field];
    if (given === undefined) continue;
    if (!options.secrets?.includes(field)) fields[snakeCase(field)] = kept(options, field, given);
    else if (given !== null) fields[snakeCase(field)] = "set";
  }
  return fields;
}

const snakeCase = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/** An entry in the wire spelling (snake_case, ISO time): the API's, and the NDJSON export's lines. */
export function wireAuditEntry(entry: AuditEntry) {
  return {
    id: entry.id,
    at: new Date(entry.at).toISOString(),
    actor: entry.actor,
    action: entry.action,
    target: entry.target,
    changes: entry.changes,
    request_id: entry.requestId,
    ip: entry.ip,
  };
}
