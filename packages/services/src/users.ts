import { emailSchema, passwordSchema, personalTeamName, UserError, uuidv7 } from "@rehook/core";
import { hashPassword } from "@rehook/auth";
import { findUserByEmail, insertUser, DuplicateRowError, type EntityManager, type User } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { insertTeamNamed } from "./teams.js";
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
): Promise<UserView> {
  const { email, password, isAdmin } = parseInput(createUserInput, input);
  const passwordHash = await hashPassword(password);
  try {
    const user = await ctx.orm.em.fork().transactional(async (em) => {
      const afterInsert = beforeInsert ? await beforeInsert(em) : undefined;
      const inserted = await insertUser(em, { id: uuidv7(), email, passwordHash, isAdmin });
      // Every user owns a personal team from the start: their own endpoints live there.
      await insertTeamNamed(em, { name: personalTeamName(email), ownerId: inserted.id, personal: true });
      await afterInsert?.(inserted.id);
      return inserted;
    });
    return { id: user.id, email: user.email, isAdmin: user.isAdmin };
  } catch (error) {
    if (error instanceof DuplicateRowError) {
      throw new UserError("conflict", `A user with the email ${email} already exists. Log in instead, or use another email.`);
    }
    throw error;
  }
}

/** The user with this email, or a not_found UserError naming it. */
export async function requireUserByEmail(ctx: Pick<ServiceContext, "orm">, rawEmail: string): Promise<User> {
  const email = parseInput(emailSchema, rawEmail);
  const user = await findUserByEmail(ctx.orm.em.fork(), email);
  if (!user) throw new UserError("not_found", `There is no user with the email ${email}. Check the address, or create the user with rehook user create.`);
  return user;
}
