// A piscina worker for the work a capture does on a large body (see capture-pool.ts): sender
// detection and routing filters, off the main thread. It never touches the database.
import {
  compileSavedFilters,
  detectSender,
  filterDocument,
  FilterWork,
  routeByFilters,
  type CompiledFilter,
  type FilterRouting,
  type RoutingFilter,
  type SenderIdentity,
} from "@rehook/core";
import { move, transferableSymbol, valueSymbol } from "piscina";
import type { Borrowed, RouteTask, SenderTask } from "./capture-pool.js";

/** The answer, with the borrowed body moved back to the main thread (see capture-pool.ts). */
function giveBack<T>(result: T, body: Uint8Array): Borrowed<T> {
  const answer = { [transferableSymbol]: [body.buffer], [valueSymbol]: { result, body } };
  return move(answer as never) as unknown as Borrowed<T>;
}

/** Compiled filter sets by their JSON text (an endpoint's filters, as its KnownRule wrote them). */
const compiled = new Map<string, Array<{ id: string; filter: CompiledFilter }>>();
const MAX_COMPILED_SETS = 64;

function filtersOf(text: string): Array<{ id: string; filter: CompiledFilter }> {
  let set = compiled.get(text);
  if (!set) {
    const saved = JSON.parse(text) as Array<{ id: string; filter: RoutingFilter }>;
    set = compileSavedFilters(saved);
    // The oldest set out first: a few endpoints with large bodies are the common case.
    if (compiled.size >= MAX_COMPILED_SETS) compiled.delete(compiled.keys().next().value!);
    compiled.set(text, set);
  }
  return set;
}

export function route({ filters, request, budget }: RouteTask): Borrowed<FilterRouting> {
  return giveBack(routeByFilters(filtersOf(filters), filterDocument(request), new FilterWork(budget)), request.body);
}

export function sender({ headers, body }: SenderTask): Borrowed<SenderIdentity> {
  return giveBack(detectSender({ headers, body }), body);
}
