import type { AuditEntry } from "@rehook/core";
import { z } from "zod";
import { auditLogInput, listAuditLog } from "../audit.js";
import { defineContract } from "./contract.js";

// The audit log is read, never written, through a contract: entries are written by the changes
// themselves (see recordAudit), and no operation updates or deletes one.
const entry = z.custom<AuditEntry>();

export const listAuditLogContract = defineContract({
  name: "audit.list",
  summary: "The team's audit log, newest first: who changed what, when and from where",
  kind: "query",
  role: "admin",
  input: auditLogInput,
  output: z.object({ entries: z.array(entry), nextCursor: z.string().nullable() }),
  errors: [],
  rest: {
    method: "GET",
    path: "/audit-log",
    status: 200,
    operationId: "listAuditLog",
    summary: "The team's audit log, newest first (admin keys): filter by actor, action, target and time, page with cursor",
  },
  run: (services, actor, input) => listAuditLog(services, { teamId: actor.teamId, ...input }),
});
