import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { RoleNote } from "../components/role-gate";
import { RouteError } from "../components/ui";
import { AuditLogPage } from "../features/audit/audit-log-page";
import { auditListInput, readAuditFilter } from "../features/audit/audit-query";
import { can, whyNot } from "../lib/roles";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Audit log · Rehook" }];

/** Entries shown per page. */
const PAGE = 50;

export async function loader({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  const team = await context.caller.teams.current();
  const url = new URL(request.url);
  const filter = readAuditFilter(url);
  if (!can(team.role, "admin")) return { allowed: false as const, reason: whyNot(team.role, "admin", "Reading the audit log") ?? "", filter, team };
  const cursor = url.searchParams.get("cursor");
  const page = await context.caller.audit.list({ ...auditListInput(filter), limit: PAGE, ...(cursor && /^[0-9a-f-]{36}$/i.test(cursor) ? { cursor } : {}) });
  return { allowed: true as const, filter, team, page, paged: Boolean(cursor) };
}

export default function AuditLogRoute() {
  const data = useLoaderData<typeof loader>();
  if (!data.allowed) return <RoleNote>{data.reason}</RoleNote>;
  return <AuditLogPage teamName={data.team.name} filter={data.filter} page={data.page} paged={data.paged} />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
