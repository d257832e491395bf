import { alertContracts, auditContracts, settingsContracts as settings } from "@rehook/services";
import { mutationOf, queryOf } from "../contract-procedure.js";
import { router } from "../trpc.js";

export const apiKeysRouter = router({
  list: queryOf(settings.listApiKeysContract),
  create: mutationOf(settings.createApiKeyContract),
  revoke: mutationOf(settings.revokeApiKeyContract),
});

export const notificationsRouter = router({
  get: queryOf(settings.getNotificationsContract),
  save: mutationOf(settings.saveNotificationsContract),
  sendTest: mutationOf(settings.sendTestNotificationContract),
});

/** One-time invite links (SIGNUP=invite), for admins. */
export const invitesRouter = router({
  list: queryOf(settings.listInvitesContract),
  create: mutationOf(settings.createInviteContract),
  revoke: mutationOf(settings.revokeInviteContract),
});

/** The team's audit log, for admins (read only). */
export const auditRouter = router({
  list: queryOf(auditContracts.listAuditLogContract),
});

/** The team's alert rules, for admins. */
export const alertsRouter = router({
  list: queryOf(alertContracts.listAlertRulesContract),
  create: mutationOf(alertContracts.createAlertRuleContract),
  update: mutationOf(alertContracts.updateAlertRuleContract),
  delete: mutationOf(alertContracts.deleteAlertRuleContract),
  sendTest: mutationOf(alertContracts.sendTestAlertContract),
});
