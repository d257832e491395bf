/**
 * Settings every connection Rehook opens applies before its first statement.
 *
 * `jit = off`: Rehook's statements are short index reads and batched writes that run in
 * milliseconds. On servers built with LLVM (Debian/Ubuntu packages, most managed services)
 * PostgreSQL decides to JIT-compile by estimated cost alone, and an estimate inflated by a
 * planner setting or a stale statistic made one page of the event list spend 0.4–1.2 s
 * compiling code for a 3 ms query. Compiling never pays off at these sizes, so it is off for
 * Rehook's sessions only; the server's setting for other clients is left alone.
 *
 * Applied as a SET after connecting, not as a startup `options` parameter, which
 * connection poolers such as PgBouncer refuse.
 */
export const SESSION_SETTINGS_SQL = "set jit = off";

/** For a transaction that must not be compiled even on a session the hook did not set up (a pooler in transaction mode). */
export const TRANSACTION_SETTINGS_SQL = "set local jit = off";
