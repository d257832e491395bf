import type { ServerResponse } from "node:http";
import { errorBody, type ErrorCode } from "@rehook/core";
import { endAfterRequest } from "./lingering-close.js";

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/** Sends an already serialised JSON text (the capture path builds its tiny answer by hand). */
export function sendJsonText(res: ServerResponse, status: number, payload: string, headers: Record<string, string> = {}): void {
  // A flat [name, value, ...] list skips node's per-key object walk on the hottest path.
  const list: string[] = ["content-type", "application/json; charset=utf-8", "content-length", String(Buffer.byteLength(payload))];
  for (const name in headers) list.push(name, headers[name]!);
  res.writeHead(status, list);
  res.end(payload);
}

export function sendError(
  res: ServerResponse,
  status: number,
  code: ErrorCode,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, errorBody(code, message), headers);
}

/**
 * Answers, then closes the connection once the rest of the request has been read and dropped
 * (within bounds: see endAfterRequest): for requests whose body we refuse to take in (too
 * large, unknown slug, no room in the body budget). The sender reads the answer instead of a
 * connection reset. With `linger: false` the connection closes as soon as the answer is out
 * (node does so for Connection: close): the rest is not waited for, and a client still
 * sending may see a reset instead of the answer.
 */
export function sendErrorAndClose(res: ServerResponse, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}, options: { linger?: boolean } = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const payload = JSON.stringify(errorBody(code, message));
  const list: string[] = ["content-type", "application/json; charset=utf-8", "content-length", String(Buffer.byteLength(payload)), "connection", "close"];
  for (const name in headers) list.push(name, headers[name]!);
  res.writeHead(status, list);
  if (options.linger === false) {
    res.end(payload);
    return;
  }
  res.write(payload);
  endAfterRequest(res);
}
