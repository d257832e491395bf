import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { pathToFileURL } from "node:url";
import { createRequestHandler, writeReadableStreamToWritable, type ServerBuild } from "@remix-run/node";
import { createCaller } from "@rehook/api";
import { clientIp, contentSecurityPolicy, readBodyOrRefuse, sendErrorAndClose } from "@rehook/http";
import { chosenTeamId, currentSession } from "@rehook/services";
import { currentRequestId } from "./request-context.js";
import type { DashboardOptions } from "./dashboard-context.js";

/** Dashboard form posts (login, signup, settings, endpoint forms) are small: larger bodies are refused unread. */
export const MAX_FORM_BODY_BYTES = 64 * 1024;

/** Loads the built Remix server (build/server/index.js, made by `remix vite:build`). */
export async function loadRemixBuild(serverBuildFile: string): Promise<ServerBuild> {
  return (await import(pathToFileURL(serverBuildFile).href)) as ServerBuild;
}

/**
 * The request as Remix sees it: addressed to one of our configured origins (never to what the
 * Host header or an absolute-form target says), with a body already read within its cap.
 */
function toFetchRequest(req: IncomingMessage, origin: string, body: Buffer | null, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // Remix compares Host with Origin for its own checks: give it the origin we answer as.
  headers.set("host", new URL(origin).host);
  // Concatenated, not resolved: a target like //evil.example/x must stay a path on our origin.
  return new Request(new URL(`${origin}${req.url ?? "/"}`), { method: req.method ?? "GET", headers, signal, ...(body ? { body } : {}) });
}

/**
 * The dashboard's pages. Each request gets the tRPC caller for its session as Remix load
 * context; form posts must come from our own origin (cookies are SameSite=Lax, and this
 * stops the rest); cookies set by procedures (login, logout) go out with the answer.
 */
export function createRemixHandler(
  build: ServerBuild,
  options: DashboardOptions & { apiDocument: () => Record<string, unknown> | null; mode?: string },
) {
  const handleRequest = createRequestHandler(build, options.mode ?? "production");
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const method = req.method ?? "GET";
    let body: Buffer | null = null;
    if (method !== "GET" && method !== "HEAD") {
      if (!options.origins.isSameOrigin(req)) {
        sendErrorAndClose(res, 403, "forbidden", "This cross-site form submission was refused. Submit the form from the dashboard itself.");
        return;
      }
      const read = await readBodyOrRefuse(req, res, MAX_FORM_BODY_BYTES, { what: "the form", intake: { bodies: options.bodies, slice: "dashboard" } });
      if (!read) return;
      body = read;
    }
    const session = await currentSession(options.services, req.headers.cookie);
    const cookies: string[] = session?.refreshed ? [session.refreshed.serialized] : [];
    const caller = createCaller({
      services: options.services,
      session,
      teamChoice: chosenTeamId(req.headers.cookie),
      clientAddress: clientIp(req, options.trustedProxyHops),
      requestId: currentRequestId() ?? null,
      setCookie: (serialized) => cookies.push(serialized),
    });
    const aborted = new AbortController();
    res.on("close", () => aborted.abort());
    const cspNonce = randomBytes(16).toString("base64");
    const response = await handleRequest(toFetchRequest(req, options.origins.originFor(req.headers.host), body, aborted.signal), {
      caller,
      user: session?.user ?? null,
      baseUrl: options.baseUrl,
      cspNonce,
      apiDocument: options.apiDocument,
    });
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value;
    });
    headers["content-security-policy"] = contentSecurityPolicy(cspNonce);
    const setCookies = [...response.headers.getSetCookie(), ...cookies];
    if (setCookies.length > 0) headers["set-cookie"] = setCookies;
    if (response.statusText) res.writeHead(response.status, response.statusText, headers);
    else res.writeHead(response.status, headers);
    if (response.body && method !== "HEAD") await writeReadableStreamToWritable(response.body, res);
    else res.end();
  };
}
