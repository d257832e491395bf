import { parseInput, runContract, type Actor, type Contract, type Services } from "@rehook/services";
import { z } from "zod";
import { protectedProcedure } from "./trpc.js";

/**
 * A contract's input schema as tRPC's input parser: the same checks, and a failure becomes
 * the use case's validation error (a sentence naming the field), as every surface shows it.
 */
export function inputParser<Schema extends z.ZodType>(schema: Schema): { "~standard": Schema["~standard"]; parse(value: unknown): z.output<Schema> } {
  // tRPC reads the types from "~standard" and, finding `parse`, calls it instead.
  return { "~standard": schema["~standard"], parse: (value) => parseInput(schema, value) };
}

function procedureFor<Input extends z.ZodType, Output extends z.ZodType>(contract: Contract<Input, Output>) {
  return protectedProcedure.input(inputParser(contract.input)).output(contract.output);
}

/**
 * Runs the contract as the signed-in user in their chosen team (the role checked first). The casts are for the generic helpers only: tRPC
 * cannot relate a generic schema to its own inferred types; at each use the types are concrete
 * and the input parser and output schema above are what check.
 */
function runFor<Input extends z.ZodType, Output extends z.ZodType>(contract: Contract<Input, Output>) {
  return ({ ctx, input }: { ctx: { services: Services; actor: Actor }; input: unknown }) =>
    runContract(contract, ctx.services, ctx.actor, input as z.output<Input>) as Promise<never>;
}

/** The signed-in user's tRPC query for a contract: its input parsed, its output checked (fields it does not name are dropped). */
export function queryOf<Input extends z.ZodType, Output extends z.ZodType>(contract: Contract<Input, Output>) {
  if (contract.kind !== "query") throw new Error(`${contract.name} is a ${contract.kind}, not a query`);
  return procedureFor(contract).query(runFor(contract));
}

/** The signed-in user's tRPC mutation for a contract (same-origin JSON only, as every mutation). */
export function mutationOf<Input extends z.ZodType, Output extends z.ZodType>(contract: Contract<Input, Output>) {
  if (contract.kind !== "mutation") throw new Error(`${contract.name} is a ${contract.kind}, not a mutation`);
  return procedureFor(contract).mutation(runFor(contract));
}

/**
 * A query whose answer the dashboard needs shaped for its pages (a body described for
 * display, a curl command): the contract's use case, then a dashboard presenter. The
 * presenter's return type is the procedure's declared output.
 */
export function presentedQueryOf<Input extends z.ZodType, Output extends z.ZodType, Shown>(
  contract: Contract<Input, Output>,
  present: (found: z.output<Output>, ctx: { services: Services }) => Promise<Shown> | Shown,
) {
  if (contract.kind !== "query") throw new Error(`${contract.name} is a ${contract.kind}, not a query`);
  return protectedProcedure
    .input(inputParser(contract.input))
    .output(z.custom<Shown>())
    .query(async ({ ctx, input }) => (await present(contract.output.parse(await runFor(contract)({ ctx, input })), ctx)) as never);
}
