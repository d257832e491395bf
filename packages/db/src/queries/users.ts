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

/** The account an identity provider's subject signed in as before (see linkIdentity), recording this sign-in on the link. */
export async function findUserByIdentity(em: EntityManager, issuer: string, subject: string): Promise<User | null> {
  const rows = await em.execute<Array<{ user_id: string }>>(
    "update user_identities set last_sign_in_at = now() where issuer = ? and subject = ? returning user_id",
    [issuer, subject],
  );
  return rows[0] ? em.findOne(UserEntity, { id: rows[0].user_id }) : null;
}

/** Links an identity provider's subject to an account (once: a second link of the subject is a no-op). */
export async function linkIdentity(em: EntityManager, identity: { issuer: string; subject: string; userId: string; email: string }): Promise<void> {
  await em.execute("insert into user_identities (issuer, subject, user_id, email) values (?, ?, ?, ?) on conflict (issuer, subject) do nothing", [
    identity.issuer,
    identity.subject,
    identity.userId,
    identity.email,
  ]);
}
