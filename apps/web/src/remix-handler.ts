import type { IncomingMessage, ServerResponse } from "node:http";
import { pathToFileURL } from "node:url";
import { createReadableStreamFromReadable, createRequestHandler, writeReadableStreamToWritable, type ServerBuild } from "@remix-run/node";
import { createCaller } from "@rehook/api";
import { clientIp, ownOrigins, sendError } from "@rehook/http";
import { currentSession } from "@rehook/services";
import type { DashboardOptions } from "./dashboard-context.js";

/** Loads the built Remix server (build/server/index.js, made by `remix vite:build`). */
export async function loadRemixBuild(serverBuildFile: string): Promise<ServerBuild> {
  return (await import(pathToFileURL(serverBuildFile).href)) as ServerBuild;
}

/** The request as Remix sees it, addressed to the origin the browser used (checked by the caller). */
function toFetchRequest(req: IncomingMessage, origin: string, signal: AbortSignal): Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
  // Behind a proxy the Host we get may be internal; Remix compares it with Origin.
  headers.set("host", new URL(origin).host);
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(new URL(req.url ?? "/", origin), {
    method,
    headers,
    signal,
    ...(hasBody ? { body: createReadableStreamFromReadable(req), duplex: "half" } : {}),
  } as RequestInit);
}

/**
 * The dashboard's pages. Each request gets the tRPC caller for its session as Remix load
 * context; form posts must come from our own origin (cookies are SameSite=Lax, and this
 * stops the rest); cookies set by procedures (login, logout) go out with the answer.
 */
export function createRemixHandler(build: ServerBuild, options: DashboardOptions & { mode?: string }) {
  const handleRequest = createRequestHandler(build, options.mode ?? "production");
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const origins = ownOrigins(req, options.baseUrl, options.trustProxy);
    const method = req.method ?? "GET";
    const origin = req.headers.origin;
    if (method !== "GET" && method !== "HEAD") {
      const sameOrigin = origin ? origins.includes(origin) : req.headers["sec-fetch-site"] === "same-origin";
      if (!sameOrigin) {
        sendError(res, 403, "forbidden", "cross-site form submission refused");
        return;
      }
    }
    const requestOrigin = origin && origins.includes(origin) ? origin : origins[origins.length - 1]!;
    const session = await currentSession(options.services, req.headers.cookie);
    const cookies: string[] = session?.refreshed ? [session.refreshed.serialized] : [];
    const caller = createCaller({
      services: options.services,
      session,
      clientAddress: clientIp(req, options.trustProxy),
      setCookie: (serialized) => cookies.push(serialized),
    });
    const aborted = new AbortController();
    res.on("close", () => aborted.abort());
    const response = await handleRequest(toFetchRequest(req, requestOrigin, aborted.signal), {
      caller,
      user: session?.user ?? null,
      baseUrl: options.baseUrl,
    });
    const headers: Record<string, string | string[]> = {};
    response.headers.forEach((value, name) => {
      if (name !== "set-cookie") headers[name] = value;
    });
    const setCookies = [...response.headers.getSetCookie(), ...cookies];
    if (setCookies.length > 0) headers["set-cookie"] = setCookies;
    if (response.statusText) res.writeHead(response.status, response.statusText, headers);
    else res.writeHead(response.status, headers);
    if (response.body && method !== "HEAD") await writeReadableStreamToWritable(response.body, res);
    else res.end();
  };
}
