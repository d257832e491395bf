import { isUuid } from "./format";

/** The filter of a list page (Activity, Replays): one endpoint and one status, each optional. */
export type ListFilter<Status extends string = string> = { endpointId?: string; status?: Status };

/** The filter in a list page's URL (?endpointId=…&status=…); a malformed value is left out. */
export function readListFilter<Status extends string>(request: Request, isStatus: (value: unknown) => value is Status): ListFilter<Status> {
  const params = new URL(request.url).searchParams;
  const endpointParam = params.get("endpointId");
  const statusParam = params.get("status");
  return {
    ...(isUuid(endpointParam) ? { endpointId: endpointParam } : {}),
    ...(isStatus(statusParam) ? { status: statusParam } : {}),
  };
}

/** One string per filter: a new one starts the list (and the filter form) afresh. */
export function listFilterKey(filter: ListFilter): string {
  return `${filter.endpointId ?? ""}|${filter.status ?? ""}`;
}

export function hasListFilter(filter: ListFilter): boolean {
  return Boolean(filter.endpointId || filter.status);
}
