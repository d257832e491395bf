import { expect } from "vitest";
import type { CliResult } from "./run-cli.js";

/** The command's JSON output, once it has succeeded. */
export function output<T = Record<string, unknown>>(result: CliResult): T {
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** A refusal: one line on stderr, no stack trace, this exit code, nothing on stdout. */
export function expectRefused(result: CliResult, code: number, pattern: RegExp): void {
  expect(result.code, result.stderr).toBe(code);
  expect(result.stderr).toMatch(pattern);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  expect(result.stdout).toBe("");
}
