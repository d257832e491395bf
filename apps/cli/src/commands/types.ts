import type { Config, Logger } from "@rehook/core";

export interface CommandContext {
  config: Config;
  logger: Logger;
  stdout: NodeJS.WritableStream;
}

export interface Command {
  /** Words that select it: ["endpoint", "create"]. */
  path: string[];
  summary: string;
  run(argv: string[], context: CommandContext): Promise<number>;
}
