// Tells a request that died on a pooled keep-alive connection the server had already
// closed (nothing reached the application: safe to send once more, as Node's http and Go's
// net/http clients do) from one the destination may have seen (never sent twice).
// undici does not say which socket carried a request, so this follows its public
// diagnostics channels (per thread, like the agents): which socket each request was
// written to, and whether anything came back on it before the error.
import { subscribe } from "node:diagnostics_channel";
import type { Socket } from "node:net";

interface Written {
  socket: Socket;
  /** The socket had carried an earlier request: it came from the pool, not a new connection. */
  reused: boolean;
  /** socket.bytesRead when this request was written (earlier answers included). */
  bytesReadBefore: number;
}

/** Errors undici reports when the peer reset or closed the connection under a request. */
const CONNECTION_LOST = new Set(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET"]);

const requestsCarried = new WeakMap<Socket, number>();
const written = new WeakMap<object, Written>();
const staleConnectionErrors = new WeakSet<object>();

subscribe("undici:client:sendHeaders", (message) => {
  const { request, socket } = message as { request: object; socket: Socket };
  const carried = requestsCarried.get(socket) ?? 0;
  requestsCarried.set(socket, carried + 1);
  written.set(request, { socket, reused: carried > 0, bytesReadBefore: socket.bytesRead });
});

subscribe("undici:request:error", (message) => {
  const { request, error } = message as { request: object; error: { code?: string } };
  const sent = written.get(request);
  if (!sent?.reused || !CONNECTION_LOST.has(error.code ?? "")) return;
  // A byte of an answer means the server got the request: resending could act on it twice.
  if (sent.socket.bytesRead !== sent.bytesReadBefore) return;
  staleConnectionErrors.add(error);
});

/**
 * True when a request failed because the reused connection it was written to had been
 * reset or closed by the server before a single byte of the answer arrived.
 */
export function failedOnStaleConnection(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const cause = (error as { cause?: unknown }).cause;
  return staleConnectionErrors.has(error) || (typeof cause === "object" && cause !== null && staleConnectionErrors.has(cause));
}
