import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueueJobWith } from "../jobs/queue.js";
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
      failures: 0,
    });
  em.assign(row, {
    ...settings,
    ...(urlChanged ? { pausedReason: null, lastError: null, failures: 0, nextPostAt: new Date() } : {}),
    updatedAt: new Date(),
  });
  await em.persistAndFlush(row);
  // Notifications may have been waiting for this (turned on again, or a pause cleared by a new URL).
  if (row.enabled && !row.pausedReason) await enqueueJobWith(em, { kind: "notify", key: userId });
  return row;
}
