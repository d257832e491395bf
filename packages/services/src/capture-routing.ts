import {
  DEFAULT_FILTER_WORK_BUDGET,
  detectSender,
  filterDocument,
  FilterWork,
  routeByFilters,
  type CompiledFilter,
  type FilterRequest,
  type FilterRouting,
  type SenderIdentity,
} from "@rehook/core";
import type { ServiceContext } from "./context.js";
import type { CaptureInput } from "./capture.js";
import type { KnownRule } from "./ingress-rules.js";

/**
 * Bodies up to this size are read on the main thread (JSON.parse or a scan of 64 KiB: about a
 * millisecond); a larger one a filter reads, or any larger one for sender detection, on the
 * capture worker.
 */
export const INLINE_BODY_BYTES = 64 * 1024;
/**
 * Work the main thread spends on one capture's filters (a few milliseconds at most): past it,
 * the filters run again on the worker with the whole budget, so where they ran never changes
 * the verdict.
 */
export const INLINE_FILTER_WORK = 20_000;

const NO_FILTERS: FilterRouting = { matched: [], cutShort: [] };

/** Compiled filters of destinations, and the same as JSON text `[{id, filter}]` for the worker (a KnownRule is one). */
export interface FilterSet {
  filters: ReadonlyArray<{ id: string; filter: CompiledFilter }>;
  filtersJson: string;
}

/**
 * Which filtered destinations take the request, and whose filter was cut short by the work
 * budget (DEFAULT_FILTER_WORK_BUDGET, shared by all of them). Small bodies and light filters
 * are settled on the main thread; a large body a filter reads, or filters that need more than
 * INLINE_FILTER_WORK, go to the capture worker. Without a worker pool (tests, tools) everything
 * runs here with the whole budget.
 */
export function evaluateFilters(ctx: Pick<ServiceContext, "capturePool">, set: FilterSet, request: FilterRequest): FilterRouting | Promise<FilterRouting> {
  // Settled here (no promise, no await) whenever the worker is not needed: most captures.
  if (set.filters.length === 0) return NO_FILTERS;
  const pool = ctx.capturePool;
  const parseHere = request.body.byteLength <= INLINE_BODY_BYTES || !set.filters.some((route) => route.filter.readsBody);
  if (!pool || parseHere) {
    const routing = routeByFilters(set.filters, filterDocument(request), new FilterWork(pool ? INLINE_FILTER_WORK : DEFAULT_FILTER_WORK_BUDGET));
    if (!pool || routing.cutShort.length === 0) return routing;
  }
  return pool.route({ filters: set.filtersJson, request, budget: DEFAULT_FILTER_WORK_BUDGET });
}

/** evaluateFilters with an endpoint's rule, for one capture. */
export function routeCapture(ctx: Pick<ServiceContext, "capturePool">, rule: KnownRule, input: CaptureInput): FilterRouting | Promise<FilterRouting> {
  return evaluateFilters(ctx, rule, { method: input.method, path: input.subPath, query: input.query, headers: input.headers, body: input.body });
}

/** Who sent the request (detectSender), on the capture worker when the body is large: the scan reads all of it. */
export function senderOf(ctx: Pick<ServiceContext, "capturePool">, input: Pick<CaptureInput, "headers" | "body">): SenderIdentity | Promise<SenderIdentity> {
  if (!ctx.capturePool || input.body.byteLength <= INLINE_BODY_BYTES) return detectSender({ headers: input.headers, body: input.body });
  return ctx.capturePool.sender({ headers: input.headers, body: input.body });
}
