import { auditContracts } from "@rehook/services";
import { contractRoute } from "../contract-route.js";
import { restAuditLog } from "../presenters/audit-entry.js";
import type { Route } from "../route.js";
import * as S from "../schemas.js";

/** The audit log (admin keys): read only, as every surface of it. */
export const AUDIT_ROUTES: Route[] = [
  contractRoute(auditContracts.listAuditLogContract, { description: "A page of the audit log", schema: S.AuditLog, errors: [400], present: restAuditLog }),
];
