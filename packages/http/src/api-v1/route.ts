import { issueSentence, UserError } from "@rehook/core";
import type { Actor, Services } from "@rehook/services";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import type { StreamBounds } from "../stream-backpressure.js";

/** A request as the API handler hands it to a route: authenticated, body read, nothing validated. */
export interface ApiRequest {
  services: Services;
  actor: Actor;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

type Parsed<T> = T extends z.ZodType ? z.infer<T> : undefined;

/** What a route's own handler gets: query and body already validated against its schemas. */
export interface ValidRequest<Q, B> {
  services: Services;
  actor: Actor;
  params: Record<string, string>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/** The request and response themselves, for routes that stream their answer. */
export interface RawExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** When a client that does not read is dropped (see stream-backpressure). */
  streamBounds: Partial<StreamBounds>;
  /** Told why a streaming client was dropped (for the log). */
  onStreamDrop(reason: string): void;
}

export interface ApiAnswer {
  status: number;
  body?: unknown;
}

export interface Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI-style path under /api/v1, e.g. /events/{id}. */
  path: string;
  operationId: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success status and its schema (none for 204); its content type is JSON unless given (or an event stream). */
  success: {
    status: number;
    schema?: z.ZodType;
    description: string;
    contentType?: string;
    /** Other media types the success answer can have (as a query parameter asks), with their JSON Schemas and an example. */
    alternatives?: Record<string, { schema: Record<string, unknown>; example: unknown }>;
    /** Headers the success answer carries besides Rehook-Api-Version (names in openapi.ts' RESPONSE_HEADERS). */
    headers?: Array<"Content-Disposition">;
  };
  /** The error statuses this route can answer besides the handler's (401 and 429; 413, 415 and 503 with a body): see openapi.ts. */
  errors: number[];
  /** What else this route answers 429 for (a paced operation), always with Retry-After: the OpenAPI document declares both. */
  paced?: string;
  /** Server-sent events instead of one JSON answer: `success.schema` is each message's data. */
  streams?: boolean;
  handle(request: ApiRequest, raw: RawExchange): Promise<ApiAnswer | undefined>;
}

type RouteSpec<Q extends z.ZodType | undefined, B extends z.ZodType | undefined> = Omit<Route, "query" | "body" | "handle"> & {
  query?: Q;
  body?: B;
  handle(request: ValidRequest<Q, B>, raw: RawExchange): Promise<ApiAnswer | undefined>;
};

/** A route whose query and body are validated (400 with the issues) before its handler runs. */
export function defineRoute<Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(spec: RouteSpec<Q, B>): Route {
  return {
    ...spec,
    handle: (request, raw) =>
      spec.handle(
        {
          ...request,
          query: (spec.query ? parseWith(spec.query, Object.fromEntries(request.query), "query") : undefined) as Parsed<Q>,
          body: (spec.body ? parseWith(spec.body, request.body, "body") : undefined) as Parsed<B>,
        },
        raw,
      ),
  };
}

/** Validates with a contract schema; a failure is a 400 with the issues as details. */
export function parseWith<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new UserError("validation_failed", `The request ${what} is not valid. ${issueSentence(parsed.error.issues[0]!)}`, parsed.error.issues);
}

