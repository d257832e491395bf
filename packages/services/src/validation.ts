import { UserError } from "@rehook/core";
import type { z } from "zod";

/** Parses use-case input; the first problem becomes a one-line validation error. */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const first = issues[0]!;
  const where = first.path.length > 0 ? `${first.path.join(".")}: ` : "";
  throw new UserError("validation_failed", `${where}${first.message}`, issues);
}
