import { issueSentence, UserError } from "@rehook/core";
import type { z } from "zod";

/** Parses use-case input; the first problem becomes a one-sentence validation error ("Name is required."). */
export function parseInput<Schema extends z.ZodType>(schema: Schema, input: unknown): z.infer<Schema> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  throw new UserError("validation_failed", issueSentence(issues[0]!), issues);
}
