import type { Command } from "./types.js";

/**
 * Every command by the words that select it, loaded only when it runs: a command's module
 * pulls in what it needs (the database, the server), and `rehook listen`, a client, needs
 * none of it. Listing them all (`rehook --help`) loads them all.
 */
export interface CommandEntry {
  path: string[];
  load(): Promise<Command>;
}

export const COMMANDS: CommandEntry[] = [
  { path: ["start"], load: async () => (await import("./start.js")).startCommand },
  { path: ["migrate"], load: async () => (await import("./migrate.js")).migrateCommand },
  { path: ["user", "create"], load: async () => (await import("./user.js")).userCreateCommand },
  { path: ["team", "create"], load: async () => (await import("./team.js")).teamCreateCommand },
  { path: ["team", "list"], load: async () => (await import("./team.js")).teamListCommand },
  { path: ["team", "adopt"], load: async () => (await import("./team.js")).teamAdoptCommand },
  { path: ["member", "add"], load: async () => (await import("./member.js")).memberAddCommand },
  { path: ["member", "list"], load: async () => (await import("./member.js")).memberListCommand },
  { path: ["member", "remove"], load: async () => (await import("./member.js")).memberRemoveCommand },
  { path: ["endpoint", "create"], load: async () => (await import("./endpoint.js")).endpointCreateCommand },
  { path: ["endpoint", "update"], load: async () => (await import("./endpoint.js")).endpointUpdateCommand },
  { path: ["endpoint", "delete"], load: async () => (await import("./endpoint.js")).endpointDeleteCommand },
  { path: ["endpoint", "secret"], load: async () => (await import("./endpoint.js")).endpointSecretCommand },
  { path: ["endpoint", "list"], load: async () => (await import("./endpoint-list.js")).endpointListCommand },
  { path: ["destination", "add"], load: async () => (await import("./destination.js")).destinationAddCommand },
  { path: ["destination", "list"], load: async () => (await import("./destination.js")).destinationListCommand },
  { path: ["destination", "update"], load: async () => (await import("./destination.js")).destinationUpdateCommand },
  { path: ["destination", "remove"], load: async () => (await import("./destination.js")).destinationRemoveCommand },
  { path: ["apikey", "create"], load: async () => (await import("./apikey.js")).apiKeyCreateCommand },
  { path: ["invite", "create"], load: async () => (await import("./invite.js")).inviteCreateCommand },
  { path: ["events", "list"], load: async () => (await import("./events-list.js")).eventsListCommand },
  { path: ["events", "get"], load: async () => (await import("./events-list.js")).eventsGetCommand },
  { path: ["events", "export"], load: async () => (await import("./events.js")).eventsExportCommand },
  { path: ["replay"], load: async () => (await import("./replay.js")).replayCommand },
  { path: ["listen"], load: async () => (await import("./listen.js")).listenCommand },
];
