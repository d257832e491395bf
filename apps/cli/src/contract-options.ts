import type { Contract } from "@rehook/services";
import { z } from "zod";
import type { OptionSpec } from "./args.js";
import { UsageError } from "./cli-error.js";

// Command-line flags derived from a contract's input fields: one string flag per field, its
// help from the field's description, its value read as the field's type. The use case then
// parses the whole input with the contract's schema, as every other surface does.

/** The field under the optional and default wrappers. */
function baseOf(field: z.ZodType): z.ZodType {
  let base = field;
  while (base instanceof z.ZodOptional || base instanceof z.ZodDefault) base = base.unwrap() as z.ZodType;
  return base;
}

/** A contract's input fields (its input is an object, perhaps one that may be left out as a whole). */
export function contractFields(contract: Pick<Contract, "name" | "input">): Record<string, z.ZodType> {
  const base = baseOf(contract.input);
  if (!(base instanceof z.ZodObject)) throw new Error(`${contract.name}'s input is not an object`);
  return base.shape as Record<string, z.ZodType>;
}

/** The flags for `fields`, named by `flags` (field → flag name), with help for fields that have no description. */
export function contractFlags(fields: Record<string, z.ZodType>, flags: Record<string, string>, help: Record<string, string> = {}): OptionSpec {
  const spec: OptionSpec = {};
  for (const [field, flag] of Object.entries(flags)) {
    const schema = fields[field]!;
    const base = baseOf(schema);
    const choices = base instanceof z.ZodEnum ? ` (${base.options.join(", ")})` : "";
    spec[flag] = { type: "string", description: `${help[field] ?? schema.description ?? field}${choices}` };
  }
  return spec;
}

/** The flags' values as the contract's input fields: instants parsed, enums checked, each mistake a usage error naming the flag. */
export function fromFlags(fields: Record<string, z.ZodType>, flags: Record<string, string>, values: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const [field, flag] of Object.entries(flags)) {
    const value = values[flag];
    if (typeof value !== "string") continue;
    const base = baseOf(fields[field]!);
    if (base instanceof z.ZodDate) {
      const date = new Date(value);
      if (Number.isNaN(date.getTime())) throw new UsageError(`--${flag} must be a date and time, e.g. 2026-01-31T12:00:00Z`);
      input[field] = date;
    } else if (base instanceof z.ZodNumber) {
      // Whole numbers only (limits, offsets); the field's own checks then give its range.
      if (!/^\d{1,15}$/.test(value)) throw new UsageError(`--${flag} must be a whole number`);
      input[field] = Number(value);
    } else if (base instanceof z.ZodEnum) {
      if (!base.options.includes(value)) throw new UsageError(`--${flag} must be one of ${base.options.join(", ")}`);
      input[field] = value;
    } else input[field] = value;
  }
  return input;
}
