import { emailSchema, passwordSchema, personalTeamName, UserError, uuidv7, type AuditOrigin } from "@rehook/core";
import { hashPassword } from "@rehook/auth";
import { findUserByEmail, insertUser, DuplicateRowError, type EntityManager, type User } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { insertTeamNamed } from "./teams.js";
import { recordAudit, recordOperatorAudit } from "./audit.js";
import { z } from "zod";

const createUserInput = z.object({ email: emailSchema, password: passwordSchema, isAdmin: z.boolean().default(false) });

export interface UserView {
  id: string;
  email: string;
  isAdmin: boolean;
}

/**
 * Creates a user (the CLI's `rehook user create`, and sign-up). `beforeInsert` runs in the
 * transaction that inserts the user (sign-up claims its invite there): when either fails,
 * neither happened.
 */
export async function createUser(
  ctx: Pick<ServiceContext, "orm">,
  input: { email: string; password: string; isAdmin?: boolean },
  beforeInsert?: (em: EntityManager) => Promise<(userId: string) => Promise<void>>,
  made: AccountMaking = { via: "cli" },
): Promise<UserView> {
  const { email, password, isAdmin } = parseInput(createUserInput, input);
  const passwordHash = await hashPassword(password);
  try {
    const user = await ctx.orm.em.fork().transactional(async (em) => {
      const afterInsert = beforeInsert ? await beforeInsert(em) : undefined;
      const inserted = await insertAccount(em, { email, passwordHash, isAdmin }, made);
      await afterInsert?.(inserted.id);
      return inserted;
    });
    return { id: user.id, email: user.email, isAdmin: user.isAdmin };
  } catch (error) {
    throw duplicateEmailAsConflict(error, email);
  }
}

/** How an account came to be: the sign-up form, single sign-on, or the operator's `rehook user create`. */
export interface AccountMaking {
  via: "sign_up" | "sso" | "cli";
  /** The request that made it (sign-up and single sign-on). */
  origin?: AuditOrigin;
}

const MADE_VIA = { sign_up: "sign-up", sso: "single sign-on", cli: "rehook user create" } as const;

/**
 * Inserts an account and its personal team on `em`'s transaction (every user owns one from
 * the start: their own endpoints live there), with the account's first audit entry in that
 * team. A null password hash makes an account that only single sign-on opens.
 */
export async function insertAccount(em: EntityManager, input: { email: string; passwordHash: string | null; isAdmin?: boolean }, made: AccountMaking): Promise<User> {
  const inserted = await insertUser(em, { id: uuidv7(), email: input.email, passwordHash: input.passwordHash, isAdmin: input.isAdmin ?? false });
  const team = await insertTeamNamed(em, { name: personalTeamName(input.email), ownerId: inserted.id, personal: true });
  const entry = {
    teamId: team.id,
    action: "user.create" as const,
    target: { type: "user" as const, id: inserted.id, name: inserted.email },
    changes: { via: MADE_VIA[made.via], ...(inserted.isAdmin ? { is_admin: true } : {}), personal_team: team.slug },
  };
  if (made.via === "cli") await recordOperatorAudit(em, entry);
  else await recordAudit(em, { userId: inserted.id, teamId: team.id, ...(made.origin ? { origin: made.origin } : {}) }, entry);
  return inserted;
}

/** A second account with the same email reads as a conflict that says what to do. */
export function duplicateEmailAsConflict(error: unknown, email: string): unknown {
  return error instanceof DuplicateRowError ? new UserError("conflict", `A user with the email ${email} already exists. Log in instead, or use another email.`) : error;
}

/** The user with this email, or a not_found UserError naming it. */
export async function requireUserByEmail(ctx: Pick<ServiceContext, "orm">, rawEmail: string): Promise<User> {
  const email = parseInput(emailSchema, rawEmail);
  const user = await findUserByEmail(ctx.orm.em.fork(), email);
  if (!user) throw new UserError("not_found", `There is no user with the email ${email}. Check the address, or create the user with rehook user create.`);
  return user;
}
