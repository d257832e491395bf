import { createEndpoint, deleteEndpoint, endpointSecret, requireUserByEmail } from "@rehook/services";
import { helpText, parseOptions } from "../args.js";
import type { Command } from "./types.js";
import { printJson, withDatabase } from "./with-database.js";

const createSpec = {
  usage: "rehook endpoint create --email <email> --name <name> [--destination <url>] [--sign]",
  summary: "Create an endpoint for a user. Prints {id, name, slug, webhook_url, destination_url} as JSON.",
  options: {
    email: { type: "string", required: true, description: "the owner's email" },
    name: { type: "string", required: true, description: "a label; the slug is made from it" },
    destination: { type: "string", description: "URL to forward captured requests to (blank: capture only)" },
    sign: { type: "boolean", description: "add Standard Webhooks signature headers to forwarded requests" },
  },
} as const;

export const endpointCreateCommand: Command = {
  path: ["endpoint", "create"],
  summary: createSpec.summary,
  async run(argv, context) {
    const options = parseOptions(createSpec, argv);
    if (options === "help") {
      context.stdout.write(`${helpText(createSpec)}\n`);
      return 0;
    }
    const endpoint = await withDatabase(context, async ({ orm }) => {
      const user = await requireUserByEmail({ orm }, options.email);
      return createEndpoint(
        { orm, baseUrl: context.config.baseUrl, addressPolicy: { allowPrivate: context.config.allowPrivateDestinations } },
        { userId: user.id, name: options.name, destinationUrl: options.destination ?? null, signRequests: options.sign },
      );
    });
    printJson(context, endpoint);
    return 0;
  },
};

const deleteSpec = {
  usage: "rehook endpoint delete --email <email> --slug <slug>",
  summary: "Permanently delete an endpoint and all its events. Its capture URL answers 404 at once.",
  options: {
    email: { type: "string", required: true, description: "the owner's email" },
    slug: { type: "string", required: true, description: "the endpoint's slug" },
  },
} as const;

export const endpointDeleteCommand: Command = {
  path: ["endpoint", "delete"],
  summary: deleteSpec.summary,
  async run(argv, context) {
    const options = parseOptions(deleteSpec, argv);
    if (options === "help") {
      context.stdout.write(`${helpText(deleteSpec)}\n`);
      return 0;
    }
    await withDatabase(context, async ({ orm }) => {
      const user = await requireUserByEmail({ orm }, options.email);
      await deleteEndpoint({ orm }, { userId: user.id, slug: options.slug });
    });
    printJson(context, { deleted: options.slug });
    return 0;
  },
};

const secretSpec = {
  usage: "rehook endpoint secret --email <email> --slug <slug> [--rotate]",
  summary: "Print an endpoint's whsec_ signing secret as JSON; --rotate replaces it first.",
  options: {
    email: { type: "string", required: true, description: "the owner's email" },
    slug: { type: "string", required: true, description: "the endpoint's slug" },
    rotate: { type: "boolean", description: "generate a new secret (the old one stops working at once)" },
  },
} as const;

export const endpointSecretCommand: Command = {
  path: ["endpoint", "secret"],
  summary: secretSpec.summary,
  async run(argv, context) {
    const options = parseOptions(secretSpec, argv);
    if (options === "help") {
      context.stdout.write(`${helpText(secretSpec)}\n`);
      return 0;
    }
    const secret = await withDatabase(context, async ({ orm }) => {
      const user = await requireUserByEmail({ orm }, options.email);
      return endpointSecret({ orm }, { userId: user.id, slug: options.slug, rotate: options.rotate });
    });
    printJson(context, secret);
    return 0;
  },
};
