import { parseInput, runContract, wireName, type Contract } from "@rehook/services";
import { z } from "zod";
import { defineRoute, type ApiAnswer, type Route } from "./route.js";

// A /api/v1 route derived from a contract: the query's (or body's) fields are the contract's
// input fields under their wire names (snake_case unless the mapping names another), with the
// REST defaults, and the answer is the contract's output through the resource's presenter.

/** How one input field travels differently on the wire (an opaque cursor for an event id). */
export interface WireField {
  schema: z.ZodType;
  /** From the wire's value to the contract's (the value as it is when absent). */
  decode?(value: never): unknown;
}

export interface ContractRouteOptions<Output> {
  /** The OpenAPI description of the success answer. */
  description: string;
  /** The success answer's wire schema (none for 204). */
  schema?: z.ZodType;
  /** The error statuses besides 401 and 429 (OpenAPI). */
  errors: number[];
  /** Fields whose wire form is not the contract's. */
  wire?: Record<string, WireField>;
  /** The answer's body from the contract's output (and the input the route ran it with). */
  present?(output: Output, input: Record<string, unknown>): unknown;
  /** What the operation is paced by (its own 429, with Retry-After; see Route.paced). */
  paced?: string;
  /** A request body the documentation shows (its `examples`), where sampling each field would make one the route refuses. */
  bodyExample?: Record<string, unknown>;
}

function unwrapped(field: z.ZodType): { base: z.ZodType; optional: boolean; fallback: { value: unknown } | null } {
  let base = field;
  let optional = false;
  let fallback: { value: unknown } | null = null;
  for (;;) {
    if (base instanceof z.ZodOptional) {
      optional = true;
      base = base.unwrap() as z.ZodType;
    } else if (base instanceof z.ZodDefault) {
      fallback = { value: base.def.defaultValue };
      base = base.unwrap() as z.ZodType;
    } else return { base, optional, fallback };
  }
}

/** A query string carries text: numbers are coerced (with the field's own checks), instants parsed as ISO 8601. */
function queryField(field: z.ZodType, wire: string, restDefault: unknown): z.ZodType {
  const { base, optional, fallback } = unwrapped(field);
  let value: z.ZodType;
  if (base instanceof z.ZodNumber) value = z.coerce.number().check(...((base.def.checks ?? []) as z.core.$ZodCheck<number>[]));
  else if (base instanceof z.ZodDate) {
    value = z.iso.datetime({ offset: true, message: `${wire} must be an ISO 8601 date-time, e.g. 2026-11-22T08:00:00Z` }).transform((text) => new Date(text));
  } else return field;
  // A REST default makes the field optional on the wire with that value (limit: 20).
  if (restDefault !== undefined || fallback) value = value.default(restDefault ?? fallback!.value);
  else if (optional) value = value.optional();
  return field.description ? value.describe(field.description) : value;
}

/** The fields of a contract's input object (one that may be left out as a whole: `z.object(…).default({})`). */
export function inputShape(contract: Contract): Record<string, z.ZodType> {
  const { base } = unwrapped(contract.input);
  if (!(base instanceof z.ZodObject)) throw new Error(`${contract.name}'s input is not an object: it cannot have a REST mapping`);
  return base.shape as Record<string, z.ZodType>;
}

/** The contract's input fields the wire carries (not from the path, not fixed, not dashboard-only), under their wire names. */
function wireFields(contract: Contract, wire: Record<string, WireField>, fieldOnWire: (field: z.ZodType, name: string, restDefault: unknown) => z.ZodType) {
  const rest = contract.rest!;
  const shape = inputShape(contract);
  const fromPath = new Set(Object.values(rest.params ?? {}));
  const fields: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(shape)) {
    if (fromPath.has(key) || rest.omit?.includes(key) || (rest.fixed && key in rest.fixed)) continue;
    fields[wireName(rest, key)] = wire[key]?.schema ?? fieldOnWire(field as z.ZodType, wireName(rest, key), rest.defaults?.[key]);
  }
  return fields;
}

/** The contract's input fields as the REST query schema (wire names, REST defaults). */
export function restQuerySchema(contract: Contract, wire: Record<string, WireField> = {}): z.ZodObject {
  return z.object(wireFields(contract, wire, queryField));
}

/** The contract's input fields as the REST JSON body's schema (wire names; unknown fields refused). */
export function restBodySchema(contract: Contract, wire: Record<string, WireField> = {}): z.ZodObject {
  return z.object(wireFields(contract, wire, (field) => field)).strict();
}

/** The parsed wire fields back under the contract's names, decoded where the wire differs. */
export function fromWire(contract: Contract, parsed: Record<string, unknown>, wire: Record<string, WireField> = {}): Record<string, unknown> {
  const rest = contract.rest!;
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(inputShape(contract))) {
    const value = parsed[wireName(rest, key)];
    if (value !== undefined) input[key] = wire[key]?.decode ? wire[key].decode(value as never) : value;
  }
  return input;
}

/** An /api/v1 route from a contract with a REST mapping: a GET or DELETE reads the query, the others a JSON body. */
export function contractRoute<Output extends z.ZodType>(contract: Contract<z.ZodType, Output>, options: ContractRouteOptions<z.output<Output>>): Route {
  const rest = contract.rest;
  if (!rest) throw new Error(`${contract.name} has no REST mapping`);
  const wire = options.wire ?? {};
  const readsBody = rest.method === "POST" || rest.method === "PATCH";
  const carried = readsBody ? restBodySchema(contract, wire) : restQuerySchema(contract, wire);
  const carries = Object.keys(carried.shape).length > 0;
  return defineRoute({
    method: rest.method,
    path: rest.path,
    operationId: rest.operationId,
    summary: rest.summary,
    query: carries && !readsBody ? carried : undefined,
    body: carries && readsBody ? (options.bodyExample ? carried.meta({ examples: [options.bodyExample] }) : carried) : undefined,
    success: { status: rest.status, schema: options.schema, description: options.description },
    // Any role above viewer can be refused: the key's role is too weak (403, naming the role).
    errors: contract.role === "viewer" ? options.errors : [...new Set([...options.errors, 403])],
    ...(options.paced ? { paced: options.paced } : {}),
    async handle({ services, actor, params, query, body }): Promise<ApiAnswer> {
      const fromPath = Object.fromEntries(Object.entries(rest.params ?? {}).map(([param, key]) => [key, params[param]]));
      const parsed = ((readsBody ? body : query) ?? {}) as Record<string, unknown>;
      const input = { ...fromWire(contract, parsed, wire), ...fromPath, ...rest.fixed };
      // The contract's own parse adds what spans fields (offset or cursor, not both), with its sentences.
      const checked = parseInput(contract.input, input);
      const output = await runContract(contract, services, actor, checked);
      if (rest.status === 204) return { status: 204 };
      return { status: rest.status, body: options.present ? options.present(contract.output.parse(output), input) : output };
    },
  });
}
