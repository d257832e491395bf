import type { IncomingMessage, ServerResponse } from "node:http";
import type { AuditOrigin } from "@rehook/core";
import { clientIp } from "./client-ip.js";

/** Where a request came from, for the audit log: the id the server answers it with (X-Request-Id) and the client's address. */
export function requestOrigin(req: IncomingMessage, res: ServerResponse, trustedProxyHops = 0): AuditOrigin {
  const requestId = res.getHeader("x-request-id");
  return { requestId: typeof requestId === "string" ? requestId : null, ip: clientIp(req, trustedProxyHops) };
}
