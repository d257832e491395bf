import type { EntityManager } from "@mikro-orm/postgresql";
import { UserEntity, type User } from "../entities/index.js";

export async function insertUser(em: EntityManager, user: Pick<User, "id" | "email" | "passwordHash">): Promise<User> {
  const entity = em.create(UserEntity, { ...user, createdAt: new Date() });
  await em.persistAndFlush(entity);
  return entity;
}

export async function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
  return em.findOne(UserEntity, { email });
}
