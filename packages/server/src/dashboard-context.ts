import type { IncomingMessage, ServerResponse } from "node:http";
import type { ApiContext } from "@rehook/api";
import { clientIp, type OriginPolicy, type RequestBodies } from "@rehook/http";
import { chosenTeamId, currentSession, type Services } from "@rehook/services";
import { currentRequestId } from "./request-context.js";

export interface DashboardOptions {
  services: Services;
  baseUrl: string;
  /** Where the dashboard may be addressed and which Origin headers are ours. */
  origins: OriginPolicy;
  /** X-Forwarded-For hops to believe (0: the socket's address is the client's). */
  trustedProxyHops: number;
  /** The server's request bodies: the dashboard's draw on its own slice. */
  bodies: RequestBodies;
}

// One session lookup per request: a tRPC call needs it before its body is read (to know whether
// it may use the part of the body budget kept for signed-in requests) and again for its context,
// and a second validation would lose the first's refreshed cookie.
const sessions = new WeakMap<IncomingMessage, ReturnType<typeof currentSession>>();

/** The request's session (from its cookie), looked up once per request. */
export function requestSession(req: IncomingMessage, services: Services): ReturnType<typeof currentSession> {
  let session = sessions.get(req);
  if (!session) {
    session = currentSession(services, req.headers.cookie);
    sessions.set(req, session);
  }
  return session;
}

/**
 * The tRPC context for one HTTP request: its session (from the cookie) and the facts the
 * cross-site checks need. Cookies set by procedures are added to the answer.
 */
export async function requestContext(req: IncomingMessage, res: ServerResponse, options: DashboardOptions): Promise<ApiContext> {
  const session = await requestSession(req, options.services);
  const cookies: string[] = [];
  const setCookie = (serialized: string) => {
    cookies.push(serialized);
    if (!res.headersSent) res.setHeader("set-cookie", cookies);
  };
  if (session?.refreshed) setCookie(session.refreshed.serialized);
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === "string" ? value : null;
  };
  return {
    services: options.services,
    session,
    teamChoice: chosenTeamId(req.headers.cookie),
    clientAddress: clientIp(req, options.trustedProxyHops),
    requestId: currentRequestId() ?? null,
    request: {
      method: req.method ?? "GET",
      origin: header("origin"),
      secFetchSite: header("sec-fetch-site"),
      contentType: header("content-type"),
      ownOrigins: options.origins.origins(),
    },
    setCookie,
  };
}
