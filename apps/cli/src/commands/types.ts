import type { Config, Logger } from "@rehook/core";

export interface CommandContext {
  config: Config;
  logger: Logger;
  stdout: NodeJS.WritableStream;
  /** What client commands (listen) read from the environment. */
  client: ClientEnvironment;
}

export interface ClientEnvironment {
  /** REHOOK_URL, else where the server running on this data directory listens (its server.json). */
  serverUrl: string | undefined;
  /** REHOOK_API_KEY */
  apiKey: string | undefined;
  /** Colours on a terminal, unless NO_COLOR is set. */
  color: boolean;
}

export interface Command {
  /** Words that select it: ["endpoint", "create"]. */
  path: string[];
  summary: string;
  run(argv: string[], context: CommandContext): Promise<number>;
}
