import type { Socket } from "node:net";
import { errorBody, type ErrorCode } from "@rehook/core";

const REASONS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: "headers_too_large", message: "the request headers are too large" },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: "request_timeout", message: "the request took too long to arrive" },
};

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 408: "Request Timeout", 431: "Request Header Fields Too Large" };

/**
 * node:http's 'clientError': a request the parser rejected before any handler saw it.
 * Answer with the same JSON error shape as every other route, then close.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (error.code === "ECONNRESET")) {
    socket.destroy();
    return;
  }
  const reason = REASONS[error.code ?? ""] ?? { status: 400, code: "bad_request" as const, message: "the request could not be parsed" };
  const body = JSON.stringify(errorBody(reason.code, reason.message));
  socket.end(
    `HTTP/1.1 ${reason.status} ${STATUS_TEXT[reason.status]}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
