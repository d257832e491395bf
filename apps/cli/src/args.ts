import { parseArgs } from "node:util";
import { UsageError } from "./cli-error.js";

export interface OptionSpec {
  [name: string]: { type: "string" | "boolean"; required?: boolean; description: string };
}

export interface CommandSpec<Options extends OptionSpec> {
  usage: string;
  summary: string;
  /** The words after the command's own, by name (rehook events get <id>): each required, in order. */
  arguments?: readonly string[];
  options: Options;
}

export type Parsed<Options extends OptionSpec> = {
  [K in keyof Options]: Options[K]["type"] extends "boolean" ? boolean : Options[K]["required"] extends true ? string : string | undefined;
};

export function helpText(spec: CommandSpec<OptionSpec>): string {
  const lines = [`Usage: ${spec.usage}`, "", spec.summary];
  const names = Object.keys(spec.options);
  if (names.length > 0) {
    lines.push("", "Options:");
    for (const name of names) {
      const option = spec.options[name]!;
      const flag = option.type === "string" ? `--${name} <value>` : `--${name}`;
      lines.push(`  ${flag.padEnd(24)} ${option.description}${option.required ? " (required)" : ""}`);
    }
  }
  lines.push(`  ${"--help".padEnd(24)} show this help`);
  return lines.join("\n");
}

/** A command line read: the flags' values and the arguments named by the spec, in order. */
export interface ParsedLine<Options extends OptionSpec> {
  options: Parsed<Options>;
  args: string[];
}

/** Parses a command's flags strictly: unknown flags, stray or missing arguments and missing required flags are usage errors. */
export function parseOptions<Options extends OptionSpec>(spec: CommandSpec<Options>, argv: string[]): ParsedLine<Options> | "help" {
  const options = Object.fromEntries(Object.entries(spec.options).map(([name, option]) => [name, { type: option.type }]));
  const named = spec.arguments ?? [];
  let values: Record<string, string | boolean | undefined>;
  let args: string[];
  try {
    const parsed = parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, strict: true, allowPositionals: named.length > 0 });
    values = parsed.values as Record<string, string | boolean | undefined>;
    args = parsed.positionals;
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0]!.replace(/\. To specify .*$/, ""));
  }
  if (values.help) return "help";
  if (args.length > named.length) throw new UsageError(`Unexpected argument '${args[named.length]}'`);
  if (args.length < named.length) throw new UsageError(`The argument <${named[args.length]}> is missing. Add it to the command.`);
  for (const [name, option] of Object.entries(spec.options)) {
    if (option.required && (values[name] === undefined || values[name] === "")) throw new UsageError(`The option --${name} is required. Add it to the command.`);
    if (option.type === "boolean") values[name] = values[name] === true;
  }
  return { options: values as Parsed<Options>, args };
}
