import { wireAuditEntry, type AuditEntry } from "@rehook/core";

/** A page of the audit log as GET /api/v1/audit-log answers it (each entry as core spells it on the wire). */
export function restAuditLog(page: { entries: AuditEntry[]; nextCursor: string | null }, input: Record<string, unknown>) {
  return { data: page.entries.map(wireAuditEntry), meta: { limit: input.limit ?? 50, next_cursor: page.nextCursor } };
}
