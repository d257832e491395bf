import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";

// Incoming ids are kept only when short and plain: they are echoed in headers and written to logs.
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

const storage = new AsyncLocalStorage<{ requestId: string }>();

/** The caller's X-Request-Id when it is safe to reuse, else a new random one. */
export function requestIdFor(header: string | string[] | undefined): string {
  return typeof header === "string" && SAFE_REQUEST_ID.test(header) ? header : randomUUID();
}

/** Runs fn with requestId bound: every log line written inside, at any depth, carries it. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
