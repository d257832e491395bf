import type { LoaderFunctionArgs } from "@remix-run/node";
import { wireAuditEntry } from "@rehook/core/browser";
import { auditListInput, readAuditFilter } from "../features/audit/audit-query";
import { requireUser } from "../lib/session.server";

/** Entries read per page of the export: one page in memory at a time, however long the log. */
const EXPORT_PAGE = 200;

/**
 * GET /settings/audit-log/export: the audit log's entries that the page's filters find, newest
 * first, as NDJSON (one entry per line, as GET /api/v1/audit-log spells them), for admins. Read
 * page by page as the download is consumed.
 */
export async function loader({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  const input = auditListInput(readAuditFilter(new URL(request.url)));
  // The first page is read before the answer starts, so a refusal (not an admin) is an error page, not a cut download.
  let page = await context.caller.audit.list({ ...input, limit: EXPORT_PAGE });
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      controller.enqueue(encoder.encode(page.entries.map((entry) => `${JSON.stringify(wireAuditEntry(entry))}\n`).join("")));
      if (!page.nextCursor) return controller.close();
      page = await context.caller.audit.list({ ...input, limit: EXPORT_PAGE, cursor: page.nextCursor });
    },
  });
  return new Response(body, {
    headers: {
      "content-type": "application/x-ndjson; charset=utf-8",
      "content-disposition": 'attachment; filename="rehook-audit-log.ndjson"',
      "cache-control": "no-store",
    },
  });
}
