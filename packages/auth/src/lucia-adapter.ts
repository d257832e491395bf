import { createHash } from "node:crypto";
import type { Adapter, DatabaseSession, DatabaseUser } from "lucia";
import { SessionEntity, UserEntity, type EntityManager } from "@rehook/db";

/** What the table stores instead of a session id: a leaked table holds no live session. */
export function sessionIdDigest(sessionId: string): string {
  return createHash("sha256").update(sessionId).digest("hex");
}

/**
 * Lucia's storage, on MikroORM. Lucia hands over raw session ids; every one is hashed
 * before it reaches the database, and sessions read back carry the raw id lucia asked for.
 * One forked EntityManager per call: the adapter is shared by concurrent requests.
 */
export class MikroOrmSessionAdapter implements Adapter {
  constructor(private readonly entityManager: () => EntityManager) {}

  async getSessionAndUser(sessionId: string): Promise<[DatabaseSession | null, DatabaseUser | null]> {
    const em = this.entityManager();
    const session = await em.findOne(SessionEntity, { id: sessionIdDigest(sessionId) }, { populate: ["user"] });
    if (!session) return [null, null];
    return [
      { id: sessionId, userId: session.user.id, expiresAt: session.expiresAt, attributes: {} },
      { id: session.user.id, attributes: { email: session.user.email } },
    ];
  }

  async getUserSessions(userId: string): Promise<DatabaseSession[]> {
    // Only digests are stored: these ids cannot be turned back into cookies.
    const sessions = await this.entityManager().find(SessionEntity, { user: userId });
    return sessions.map((session) => ({ id: session.id, userId, expiresAt: session.expiresAt, attributes: {} }));
  }

  async setSession(session: DatabaseSession): Promise<void> {
    const em = this.entityManager();
    em.create(SessionEntity, { id: sessionIdDigest(session.id), user: em.getReference(UserEntity, session.userId), expiresAt: session.expiresAt });
    await em.flush();
  }

  async updateSessionExpiration(sessionId: string, expiresAt: Date): Promise<void> {
    await this.entityManager().nativeUpdate(SessionEntity, { id: sessionIdDigest(sessionId) }, { expiresAt });
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.entityManager().nativeDelete(SessionEntity, { id: sessionIdDigest(sessionId) });
  }

  async deleteUserSessions(userId: string): Promise<void> {
    await this.entityManager().nativeDelete(SessionEntity, { user: userId });
  }

  async deleteExpiredSessions(): Promise<void> {
    await this.entityManager().nativeDelete(SessionEntity, { expiresAt: { $lte: new Date() } });
  }
}
