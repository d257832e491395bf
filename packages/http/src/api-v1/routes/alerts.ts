import { alertContracts as alerts } from "@rehook/services";
import { contractRoute } from "../contract-route.js";
import { restAlertRule, restAlertRuleList } from "../presenters/alert-rule.js";
import type { Route } from "../route.js";
import * as S from "../schemas.js";

/** The team's alert rules (admin keys), derived from their contracts. */
export const ALERT_ROUTES: Route[] = [
  contractRoute(alerts.listAlertRulesContract, { description: "The team's alert rules", schema: S.AlertRuleList, errors: [], present: restAlertRuleList }),
  contractRoute(alerts.createAlertRuleContract, { description: "The new rule", schema: S.AlertRule, errors: [400, 404, 409, 413, 415], present: restAlertRule }),
  contractRoute(alerts.updateAlertRuleContract, { description: "The rule after the change", schema: S.AlertRule, errors: [400, 404, 413, 415], present: restAlertRule }),
  contractRoute(alerts.deleteAlertRuleContract, { description: "Deleted", errors: [404] }),
  contractRoute(alerts.sendTestAlertContract, {
    description: "How the test went",
    schema: S.AlertTest,
    errors: [404],
    paced: "or tests are paced: one per rule every 30 s, 20 per team and 20 per user in an hour, and an email test counts against the team's and the server's hourly email",
  }),
];
