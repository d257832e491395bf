import type { EntityManager } from "@mikro-orm/postgresql";
import { UserEntity, type User } from "../entities/index.js";
import { insertingInto } from "../duplicate-row.js";

/** Inserts a user; the first user of an install is an admin whatever `isAdmin` says (someone must be able to invite). */
export async function insertUser(em: EntityManager, user: Pick<User, "id" | "email" | "passwordHash"> & { isAdmin?: boolean }): Promise<User> {
  const entity = em.create(UserEntity, { ...user, isAdmin: user.isAdmin ?? false, createdAt: new Date() });
  await insertingInto("users", () => em.persistAndFlush(entity));
  if (!entity.isAdmin) {
    // Ids are UUIDv7, in creation order: no smaller id means no earlier user.
    const promoted = await em
      .getConnection()
      .execute<Array<{ id: string }>>(
        "update users set is_admin = true where id = ? and not exists (select 1 from users where id < ?) returning id",
        [entity.id, entity.id],
        "all",
        em.getTransactionContext(),
      );
    if (promoted.length > 0) entity.isAdmin = true;
  }
  return entity;
}

export async function findUserByEmail(em: EntityManager, email: string): Promise<User | null> {
  return em.findOne(UserEntity, { email });
}

export async function findUserById(em: EntityManager, id: string): Promise<User | null> {
  return em.findOne(UserEntity, { id });
}

/** Whether the install has any user yet (the start line says how to create the first). */
export async function anyUserExists(em: EntityManager): Promise<boolean> {
  const row = await em.execute<{ found: boolean }>("select exists (select 1 from users) as found", [], "get");
  return row.found;
}
