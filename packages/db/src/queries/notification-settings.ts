import type { EntityManager } from "@mikro-orm/postgresql";
import { enqueueJobWith } from "../jobs/queue.js";
import { NotificationSettingsEntity, TeamEntity, type NotificationSettings } from "../entities/index.js";

export async function findNotificationSettings(em: EntityManager, teamId: string): Promise<NotificationSettings | null> {
  return em.findOne(NotificationSettingsEntity, { team: teamId });
}

/** Saves the user's settings; saving a URL clears a pause and the last error (a new hook starts clean). */
export async function saveNotificationSettings(
  em: EntityManager,
  teamId: string,
  settings: { enabled: boolean; webhookUrl: string | null; triggers: string[] },
): Promise<NotificationSettings> {
  const existing = await findNotificationSettings(em, teamId);
  const urlChanged = existing?.webhookUrl !== settings.webhookUrl;
  const row =
    existing ??
    em.create(NotificationSettingsEntity, {
      team: em.getReference(TeamEntity, teamId),
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
  if (row.enabled && !row.pausedReason) await enqueueJobWith(em, { kind: "notify", key: teamId });
  return row;
}
