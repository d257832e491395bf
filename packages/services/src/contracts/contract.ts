import { forbiddenMessage, roleAllows, UserError, type AuditOrigin, type ErrorCode, type Role } from "@rehook/core";
import type { z } from "zod";
import type { Services } from "../service-graph.js";

export type { Role };

/**
 * Who asks, and in which team: the signed-in user in the team chosen in the dashboard, an
 * API key's team with the weaker of the key's and its creator's roles, or the CLI's --email
 * in its --team. Every operation runs inside the actor's team only.
 */
export interface Actor {
  userId: string;
  teamId: string;
  role: Role;
  /** The API key the request came with (streams end when it is revoked). */
  keyId?: string;
  /** The CLI acts (as --email): the audit log says so. */
  cli?: boolean;
  /** The HTTP request this actor came with: its id and the client's address, for the audit log. */
  origin?: AuditOrigin;
}

/** How an operation appears in the public REST API (/api/v1). */
export interface RestMapping {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Under /api/v1, OpenAPI style: /events/{id}. */
  path: string;
  /** The success status (204 answers no body). */
  status: number;
  operationId: string;
  summary: string;
  /** Path parameters and the input field each fills: { id: "eventId" }. */
  params?: Record<string, string>;
  /** Wire names that are not the field's snake_case: { search: "q" }. */
  names?: Record<string, string>;
  /** Defaults the wire has instead of the contract's: { limit: 20 }. */
  defaults?: Record<string, unknown>;
  /** Input the REST API sets itself and never reads from the wire: { withTotal: true }. */
  fixed?: Record<string, unknown>;
  /** Input fields the REST API does not offer (dashboard-only). */
  omit?: readonly string[];
}

/**
 * One operation, described once: its input and output (camelCase domain types), the errors
 * it answers, the role it needs, how it looks on REST when it is public, and what it runs.
 * The tRPC procedure, the /api/v1 route, the session routes, the CLI and the OpenAPI document
 * are derived from it; none of them writes the input again.
 */
export interface Contract<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  /** "events.list": the tRPC path. */
  name: string;
  summary: string;
  kind: "query" | "mutation";
  role: Role;
  input: Input;
  output: Output;
  /** Codes it can answer besides validation_failed, unauthorized and rate_limited. */
  errors: readonly ErrorCode[];
  rest?: RestMapping;
  run(services: Services, actor: Actor, input: z.output<Input>): Promise<z.input<Output>>;
}

export function defineContract<Input extends z.ZodType, Output extends z.ZodType>(contract: Contract<Input, Output>): Contract<Input, Output> {
  return Object.freeze(contract);
}

/** A field's name on the REST wire: its own snake_case unless the mapping names another. */
export function wireName(mapping: Pick<RestMapping, "names">, field: string): string {
  return mapping.names?.[field] ?? field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

/**
 * The one place an operation's role is checked: every transport (tRPC, /api/v1, the session
 * routes, the CLI) runs its contracts through here, so none can forget it.
 */
export async function runContract<Input extends z.ZodType, Output extends z.ZodType>(
  contract: Contract<Input, Output>,
  services: Services,
  actor: Actor,
  input: z.output<Input>,
): Promise<z.input<Output>> {
  requireRole(actor, contract.role, contract.summary);
  return contract.run(services, actor, input);
}

/** Refuses (403 forbidden, naming the role needed) unless the actor's role allows `needed`. */
export function requireRole(actor: Pick<Actor, "role">, needed: Role, what?: string): void {
  if (!roleAllows(actor.role, needed)) throw new UserError("forbidden", forbiddenMessage(needed, actor.role, what ? describe(what) : undefined));
}

// "Creates an endpoint: a new capture URL…" -> "Creating an endpoint" reads badly; the summary's
// first clause, lower-cased, as "This (creates an endpoint)" reads well enough.
function describe(summary: string): string {
  const clause = summary.split(/[:;,(]/)[0]!.trim();
  return `This operation (${clause.charAt(0).toLowerCase()}${clause.slice(1)})`;
}
