import type { EntityManager } from "@rehook/db";
import {
  AUDIT_ACTOR_TYPES,
  AUDIT_TARGET_TYPES,
  MAX_AUDIT_PAGE,
  SYSTEM_ACTOR,
  isAuditAction,
  type AuditAction,
  type AuditActor,
  type AuditChanges,
  type AuditEntry,
  type AuditOrigin,
  type AuditTarget,
} from "@rehook/core";
import { insertAuditEntry, listAuditEntries } from "@rehook/db";
import { z } from "zod";
import type { Actor } from "./contracts/contract.js";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";

/** Who an actor is in the audit log: the API key it came with, else the user (through the CLI or not). */
export function auditActorOf(actor: Pick<Actor, "userId" | "keyId" | "cli">): AuditActor {
  if (actor.keyId) return { type: "api_key", id: actor.keyId, name: null };
  return { type: actor.cli ? "cli" : "user", id: actor.userId, name: null };
}

/** Something that changes: the actor who acts (absent: the system, as for tests and jobs). */
export type AuditedBy = Pick<Actor, "userId" | "teamId" | "keyId" | "cli" | "origin"> | undefined;

/**
 * Records what `by` did to a target of its team, on `em`'s transaction: call it inside the
 * transaction that makes the change, so that the change and its entry commit together.
 */
export async function recordAudit(em: EntityManager, by: AuditedBy, entry: AuditRecord): Promise<void> {
  const teamId = entry.teamId ?? by?.teamId;
  await insertAuditEntry(em, {
    teamIds: teamId ? [teamId] : [],
    actor: by ? auditActorOf(by) : SYSTEM_ACTOR,
    action: entry.action,
    target: entry.target,
    changes: entry.changes ?? null,
    origin: by?.origin ?? null,
  });
}

export interface AuditRecord {
  /** The team the target belongs to (default: the actor's). */
  teamId?: string;
  action: AuditAction;
  target: AuditTarget;
  changes?: AuditChanges | null;
}

/** The operator at the server's shell: CLI commands that act as nobody in particular (rehook member add). */
export const CLI_OPERATOR: AuditActor = Object.freeze({ type: "cli", id: null, name: "rehook CLI (operator)" });

/** Records what the operator did with the CLI to a team, on `em`'s transaction. */
export async function recordOperatorAudit(em: EntityManager, entry: AuditRecord & { teamId: string }): Promise<void> {
  await insertAuditEntry(em, { teamIds: [entry.teamId], actor: CLI_OPERATOR, action: entry.action, target: entry.target, changes: entry.changes ?? null });
}

/** Records a sign-in or a failed one: in each team of the account (none for an unknown email). */
export async function recordSignIn(
  em: EntityManager,
  input: {
    action: Extract<AuditAction, "user.sign_in" | "user.sign_in_failed">;
    userId: string | null;
    email: string;
    teamIds: string[];
    origin: AuditOrigin;
    reason?: string;
    /** How: absent for the password form, "sso" for single sign-on. */
    method?: "sso";
  },
): Promise<void> {
  const changes = { ...(input.method ? { method: input.method } : {}), ...(input.reason ? { reason: input.reason } : {}) };
  await recordAccountAudit(em, { ...input, changes: Object.keys(changes).length > 0 ? changes : null });
}

/** An entry about an account, by that account, in each of its teams (none for an unknown email), on `em`'s transaction. */
export async function recordAccountAudit(
  em: EntityManager,
  input: { action: AuditAction; userId: string | null; email: string; teamIds: string[]; changes: AuditChanges | null; origin: AuditOrigin },
): Promise<void> {
  await insertAuditEntry(em, {
    teamIds: input.teamIds,
    actor: { type: "user", id: input.userId, name: input.email },
    action: input.action,
    target: { type: "user", id: input.userId, name: input.email },
    changes: input.changes,
    origin: input.origin,
  });
}

const actionFilter = z
  .string()
  .max(64)
  .refine((value) => isAuditAction(value) || /^[a-z_]+\.$/.test(value), "name an action (endpoint.update) or a target's actions (endpoint.)");

/** The audit log's list: a page, newest first, narrowed by actor, action, target and time. */
export const auditLogInput = z
  .object({
    cursor: z.uuid({ message: "the cursor must be meta.next_cursor of the previous page" }).optional().describe("meta.next_cursor of the previous page: the next (older) page"),
    limit: z.number().int().min(1).max(MAX_AUDIT_PAGE).default(50),
    actorId: z.string().max(64).optional().describe("Only entries by this user or API key (its id)"),
    actorType: z.enum(AUDIT_ACTOR_TYPES).optional().describe("Only entries by this kind of actor: user, api_key, cli or system"),
    action: actionFilter.optional().describe("Only this action (endpoint.update), or every action on a kind of target (endpoint.)"),
    targetType: z.enum(AUDIT_TARGET_TYPES).optional(),
    targetId: z.string().max(64).optional().describe("Only entries about this endpoint, destination, event, key, member… (its id)"),
    from: z.date().optional().describe("Only entries at or after this time"),
    to: z.date().optional().describe("Only entries before this time"),
  })
  .refine((input) => !input.from || !input.to || input.from < input.to, { message: "from must be before to" });
export type AuditLogInput = z.input<typeof auditLogInput>;

export interface AuditPage {
  entries: AuditEntry[];
  /** The cursor of the next (older) page; null on the last one. */
  nextCursor: string | null;
}

/** One page of the team's audit log, newest first. */
export async function listAuditLog(ctx: Pick<ServiceContext, "orm">, input: { teamId: string } & AuditLogInput): Promise<AuditPage> {
  const { teamId, ...rest } = input;
  const query = parseInput(auditLogInput, rest);
  const defined = Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined));
  const entries = await listAuditEntries(ctx.orm.em.fork(), { ...defined, teamId, limit: query.limit + 1 });
  const page = entries.slice(0, query.limit);
  return { entries: page, nextCursor: entries.length > query.limit ? page.at(-1)!.id : null };
}
