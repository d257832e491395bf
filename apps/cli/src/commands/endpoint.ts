import { createEndpoint, deleteEndpoint, endpointSecret, requireUserByEmail } from "@rehook/services";
import type { Orm } from "@rehook/db";
import { defineCommand } from "./define.js";
import type { CommandContext } from "./types.js";
import { withDatabase } from "./with-database.js";

/** Runs `work` for the user with this email, on a freshly opened database. */
function asUser<T>(context: CommandContext, email: string, work: (orm: Orm, userId: string) => Promise<T>): Promise<T> {
  return withDatabase(context, async ({ orm }) => work(orm, (await requireUserByEmail({ orm }, email)).id));
}

const owner = { type: "string", required: true, description: "the owner's email" } as const;
const slug = { type: "string", required: true, description: "the endpoint's slug" } as const;

export const endpointCreateCommand = defineCommand(
  ["endpoint", "create"],
  {
    usage: "rehook endpoint create --email <email> --name <name> [--destination <url>] [--sign]",
    summary: "Create an endpoint for a user. Prints it as JSON: {id, name, slug, webhook_url, destination_url, health, ...}.",
    options: {
      email: owner,
      name: { type: "string", required: true, description: "a label; the slug is made from it" },
      destination: { type: "string", description: "URL to forward captured requests to (blank: capture only)" },
      sign: { type: "boolean", description: "add Standard Webhooks signature headers to forwarded requests" },
    },
  } as const,
  (options, context) =>
    asUser(context, options.email, (orm, userId) =>
      createEndpoint(
        { orm, baseUrl: context.config.baseUrl, addressPolicy: { allowPrivate: context.config.allowPrivateDestinations } },
        { userId, name: options.name, destinationUrl: options.destination ?? null, signRequests: options.sign },
      ),
    ),
);

export const endpointDeleteCommand = defineCommand(
  ["endpoint", "delete"],
  {
    usage: "rehook endpoint delete --email <email> --slug <slug>",
    summary: "Permanently delete an endpoint and all its events. Its capture URL answers 404 at once.",
    options: { email: owner, slug },
  } as const,
  async (options, context) => {
    await asUser(context, options.email, (orm, userId) => deleteEndpoint({ orm }, { userId, endpoint: { slug: options.slug } }));
    return { deleted: options.slug };
  },
);

export const endpointSecretCommand = defineCommand(
  ["endpoint", "secret"],
  {
    usage: "rehook endpoint secret --email <email> --slug <slug> [--rotate]",
    summary: "Print an endpoint's whsec_ signing secret as JSON; --rotate replaces it first.",
    options: {
      email: owner,
      slug,
      rotate: { type: "boolean", description: "generate a new secret (the old one stops working at once)" },
    },
  } as const,
  (options, context) =>
    asUser(context, options.email, (orm, userId) => endpointSecret({ orm }, { userId, endpoint: { slug: options.slug }, rotate: options.rotate }).then(({ slug, secret }) => ({ slug, secret }))),
);
