import { initTRPC, TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import superjson from "superjson";
import { UserError, type ErrorCode } from "@rehook/core";
import { actorFor, type Actor, type CurrentSession, type Services, type TeamView } from "@rehook/services";

/** Facts about an HTTP request to /trpc, for the cross-site checks. */
export interface RequestFacts {
  method: string;
  origin: string | null;
  secFetchSite: string | null;
  contentType: string | null;
  /** Origins this server answers as: BASE_URL's and ALLOWED_ORIGINS (configuration only, never the Host header). */
  ownOrigins: readonly string[];
}

export interface ApiContext {
  services: Services;
  session: CurrentSession | null;
  /** The team id this browser chose last (its cookie); membership is checked before it is used. */
  teamChoice: string | null;
  /** The client's address (login rate limits, the audit log). */
  clientAddress: string | null;
  /** The request's id (X-Request-Id), for the audit log. */
  requestId?: string | null;
  /** Absent for the server-side caller: Remix actions check the origin before calling. */
  request?: RequestFacts;
  /** Adds a Set-Cookie header to the answer (sign-up, log-in, log-out). */
  setCookie(serialized: string): void;
}

const TRPC_CODES: Record<ErrorCode, TRPC_ERROR_CODE_KEY> = {
  bad_request: "BAD_REQUEST",
  validation_failed: "BAD_REQUEST",
  unauthorized: "UNAUTHORIZED",
  forbidden: "FORBIDDEN",
  misdirected: "FORBIDDEN",
  not_found: "NOT_FOUND",
  method_not_allowed: "METHOD_NOT_SUPPORTED",
  conflict: "CONFLICT",
  payload_too_large: "PAYLOAD_TOO_LARGE",
  headers_too_large: "BAD_REQUEST",
  unsupported_media_type: "UNSUPPORTED_MEDIA_TYPE",
  unprocessable: "UNPROCESSABLE_CONTENT",
  rate_limited: "TOO_MANY_REQUESTS",
  request_timeout: "TIMEOUT",
  unavailable: "SERVICE_UNAVAILABLE",
  draining: "SERVICE_UNAVAILABLE",
  migrations_pending: "SERVICE_UNAVAILABLE",
  internal: "INTERNAL_SERVER_ERROR",
};

const t = initTRPC.context<ApiContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error }) {
    const cause = error.cause instanceof UserError ? error.cause : undefined;
    const internal = error.code === "INTERNAL_SERVER_ERROR" && !cause;
    return {
      ...shape,
      // Never a stack trace or an internal message in an answer.
      message: internal ? "something went wrong on our side" : shape.message,
      data: { code: shape.data.code, httpStatus: shape.data.httpStatus, rehookCode: cause?.code ?? null, path: shape.data.path },
    };
  },
});

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Use-case errors become tRPC errors with the matching code and the same message. */
const userErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof UserError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODES[cause.code], message: cause.message, cause });
  }
  return result;
});

/**
 * Mutations authenticated by a cookie must come from our own pages: a JSON body (a plain
 * HTML form cannot send one cross-site without a preflight) and a same-origin Origin.
 */
const sameOriginMutations = t.middleware(({ ctx, type, next }) => {
  if (type !== "mutation" || !ctx.request) return next();
  const { contentType, origin, secFetchSite, ownOrigins } = ctx.request;
  if (!contentType?.toLowerCase().startsWith("application/json")) {
    throw new TRPCError({ code: "UNSUPPORTED_MEDIA_TYPE", message: "Mutations must be JSON. Send them with Content-Type: application/json." });
  }
  const sameOrigin = origin ? ownOrigins.includes(origin) : secFetchSite === "same-origin";
  if (!sameOrigin) throw new TRPCError({ code: "FORBIDDEN", message: "This cross-site request was refused. Send it from the dashboard itself." });
  return next();
});

export const publicProcedure = t.procedure.use(userErrors).use(sameOriginMutations);

/**
 * Called by the dashboard's own pages on the server only (the single sign-on redirects, which
 * hand over the cookie header and origin themselves): /trpc answers 404 for them.
 */
export const pageProcedure = publicProcedure.use(({ ctx, next }) => {
  if (ctx.request) throw new TRPCError({ code: "NOT_FOUND", message: "No such procedure. The dashboard's pages call this one themselves." });
  return next();
});

/**
 * Signed in; `ctx.user` is the session's user, `ctx.actor` who they are in the team their
 * browser chose (or their first team), and every use case is scoped to that team.
 */
export const protectedProcedure = publicProcedure.use(async ({ ctx, next }) => {
  if (!ctx.session) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first, then try again." });
  const found: { actor: Actor; team: TeamView } = await actorFor(ctx.services, { userId: ctx.session.user.id, teamId: ctx.teamChoice });
  const actor: Actor = { ...found.actor, origin: { requestId: ctx.requestId ?? null, ip: ctx.clientAddress } };
  return next({ ctx: { ...ctx, session: ctx.session, user: ctx.session.user, actor, team: found.team } });
});
