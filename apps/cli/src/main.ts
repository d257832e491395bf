#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { ConfigError, isUserError } from "@rehook/core";
import { createLogger } from "@rehook/server/logger";
import { UsageError } from "./cli-error.js";
import { COMMANDS, type CommandEntry } from "./commands/registry.js";
import type { Command } from "./commands/types.js";
import { clientFromEnvironment, configFromEnvironment } from "./env.js";
import { releaseWrapperChannel } from "./stop-signals.js";

/** The commands of these entries, loaded (for their summaries in the help). */
const loaded = (entries: CommandEntry[]): Promise<Command[]> => Promise.all(entries.map((entry) => entry.load()));

/** One line per command: its words and what it does. */
const commandRows = (listed: Command[]) => listed.map((command) => `  rehook ${command.path.join(" ").padEnd(18)} ${command.summary}`);

async function overview(): Promise<string> {
  const rows = commandRows(await loaded(COMMANDS));
  return ["Usage: rehook <command> [options]", "", "Commands:", ...rows, "", "Run `rehook <command> --help` for a command's options."].join("\n");
}

/** `rehook user --help`, `rehook endpoint` and the like: the commands under a group word. */
async function groupHelp(word: string): Promise<string | undefined> {
  const members = COMMANDS.filter((entry) => entry.path.length > 1 && entry.path[0] === word);
  if (members.length === 0) return undefined;
  const rows = commandRows(await loaded(members));
  return [`Usage: rehook ${word} <command> [options]`, "", "Commands:", ...rows, "", `Run \`rehook ${word} <command> --help\` for a command's options.`].join("\n");
}

/** The version in the CLI's package.json (two levels up from dist/main.js and src/main.ts alike). */
function version(): string {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return manifest.version;
}

async function findCommand(argv: string[]): Promise<{ command: Command; rest: string[] } | undefined> {
  const entry = COMMANDS.find((candidate) => candidate.path.every((word, index) => argv[index] === word));
  return entry && { command: await entry.load(), rest: argv.slice(entry.path.length) };
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === "--help" || argv[0] === "-h" || argv[0] === "help") {
    process.stdout.write(`${await overview()}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  if (argv[0] === "--version" || argv[0] === "-V") {
    process.stdout.write(`rehook ${version()}\n`);
    return 0;
  }
  const found = await findCommand(argv);
  const group = found ? undefined : await groupHelp(argv[0]!);
  if (group) {
    // A group word alone is a question (exit 2, like rehook alone); with --help, an answer.
    const asked = argv[1] === "--help" || argv[1] === "-h";
    (asked ? process.stdout : process.stderr).write(`${group}\n`);
    return asked ? 0 : 2;
  }
  if (!found) {
    process.stderr.write(`rehook: unknown command "${argv.slice(0, 2).join(" ")}"; run rehook --help\n`);
    return 2;
  }
  let logLevel = "info";
  try {
    const config = configFromEnvironment();
    logLevel = config.logLevel;
    const logger = createLogger({ level: config.logLevel, format: config.logFormat });
    return await found.command.run(found.rest, { config, logger, stdout: process.stdout, client: clientFromEnvironment() });
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`rehook ${found.command.path.join(" ")}: ${error.message} (see --help)\n`);
      return 2;
    }
    if (isUserError(error) || error instanceof ConfigError) {
      process.stderr.write(`rehook: ${error.message}\n`);
      return 1;
    }
    // Not the user's fault: one line, with the stack only when asked for.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`rehook: ${message.split("\n")[0]}\n`);
    if (logLevel === "debug" && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return 1;
  }
}

releaseWrapperChannel();
main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`rehook: ${String(error)}\n`);
    process.exitCode = 1;
  },
);
