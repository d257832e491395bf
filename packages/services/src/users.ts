import { emailSchema, passwordSchema, UserError, uuidv7 } from "@rehook/core";
import { hashPassword } from "@rehook/auth";
import { findUserByEmail, insertUser, UniqueConstraintViolationException, type User } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { z } from "zod";

const createUserInput = z.object({ email: emailSchema, password: passwordSchema });

export interface UserView {
  id: string;
  email: string;
}

export async function createUser(ctx: Pick<ServiceContext, "orm">, input: { email: string; password: string }): Promise<UserView> {
  const { email, password } = parseInput(createUserInput, input);
  const passwordHash = await hashPassword(password);
  const em = ctx.orm.em.fork();
  try {
    const user = await insertUser(em, { id: uuidv7(), email, passwordHash });
    return { id: user.id, email: user.email };
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) {
      throw new UserError("conflict", `a user with email ${email} already exists`);
    }
    throw error;
  }
}

/** The user with this email, or a not_found UserError naming it. */
export async function requireUserByEmail(ctx: Pick<ServiceContext, "orm">, rawEmail: string): Promise<User> {
  const email = parseInput(emailSchema, rawEmail);
  const user = await findUserByEmail(ctx.orm.em.fork(), email);
  if (!user) throw new UserError("not_found", `no user with email ${email}`);
  return user;
}
