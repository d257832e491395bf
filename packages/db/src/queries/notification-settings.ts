import type { EntityManager } from "@mikro-orm/postgresql";
import { NotificationSettingsEntity, UserEntity, type NotificationSettings } from "../entities/index.js";

export async function findNotificationSettings(em: EntityManager, userId: string): Promise<NotificationSettings | null> {
  return em.findOne(NotificationSettingsEntity, { user: userId });
}

/** Saves the user's settings; saving a URL clears a pause and the last error (a new hook starts clean). */
export async function saveNotificationSettings(
  em: EntityManager,
  userId: string,
  settings: { enabled: boolean; webhookUrl: string | null; triggers: string[] },
): Promise<NotificationSettings> {
  const existing = await findNotificationSettings(em, userId);
  const urlChanged = existing?.webhookUrl !== settings.webhookUrl;
  const row =
    existing ??
    em.create(NotificationSettingsEntity, {
      user: em.getReference(UserEntity, userId),
      enabled: false,
      webhookUrl: null,
      triggers: ["failed"],
      pausedReason: null,
      lastError: null,
      updatedAt: new Date(),
      nextPostAt: new Date(),
      leaseUntil: null,
      failures: 0,
    });
  em.assign(row, {
    ...settings,
    ...(urlChanged ? { pausedReason: null, lastError: null, failures: 0, nextPostAt: new Date() } : {}),
    updatedAt: new Date(),
  });
  await em.persistAndFlush(row);
  return row;
}
