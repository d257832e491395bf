import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import { expect } from "vitest";
import { UserError, uuidv7, type ErrorCode } from "@rehook/core";
import { insertUser } from "@rehook/db";
import { test as base } from "@rehook/vitest-config/service-fixtures";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { captureRequest, insertTeamNamed, type Services } from "@rehook/services";
import type { FixtureUser } from "@rehook/vitest-config/service-fixtures";

// Shared by the use-case test files: the service fixtures plus a second user (for scoping
// stories), a capture helper and the assertions on refusals.

export const PASSWORD = "a long enough password";

export const test = base.extend<{ other: FixtureUser }>({
  /**
   * Another user of the test's own, owner of their own personal team: that team's ids must
   * answer as if missing. Stored without a usable password (no scrypt hash: it never logs
   * in), so a scoping story costs no hash.
   */
  other: async ({ services }, use) => {
    const em = services.orm.em.fork();
    const email = `other-${randomBytes(6).toString("hex")}@example.com`;
    const user = await insertUser(em, { id: uuidv7(), email, passwordHash: "unusable" });
    const team = await insertTeamNamed(em, { name: email, ownerId: user.id, personal: true });
    await use({ id: user.id, email: user.email, isAdmin: user.isAdmin, teamId: team.id, actor: { userId: user.id, teamId: team.id, role: "owner" } });
  },
});

/** An id no row has. */
export const MISSING_ID = "0192f0e0-0000-7000-8000-000000000000";

/** The UserError a call was refused with (fails when it succeeds, or throws anything else). */
export async function refusal(call: Promise<unknown>): Promise<UserError> {
  let result: unknown;
  try {
    result = await call;
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error(`expected a refusal, got ${JSON.stringify(result)?.slice(0, 200)}`);
}

/** Asserts the call was refused with this code and message (a string matches exactly). */
export async function expectRefused(call: Promise<unknown>, code: ErrorCode, message?: string | RegExp): Promise<UserError> {
  const error = await refusal(call);
  expect(error.code, error.message).toBe(code);
  if (typeof message === "string") expect(error.message).toBe(message);
  else if (message) expect(error.message).toMatch(message);
  return error;
}

/** Captures a request to the endpoint as the capture handler does, answering the stored event's id. */
export async function capture(
  services: Services,
  slug: string,
  body: string | Buffer,
  headers: Array<[string, string]> = [["Content-Type", "application/json"]],
  target: { method?: string; subPath?: string; query?: string } = {},
): Promise<string> {
  const outcome = await captureRequest(services, {
    slug,
    method: target.method ?? "POST",
    subPath: target.subPath ?? "",
    query: target.query ?? "",
    headers,
    body: Buffer.isBuffer(body) ? body : Buffer.from(body),
    clientIp: "192.0.2.1",
  });
  if (outcome.kind !== "accepted") throw new Error(`capture was not accepted: ${outcome.kind}`);
  return outcome.eventId;
}

type Answer = (res: ServerResponse) => void;

/** A loopback destination that answers each request with the next scripted answer, then with 200 "ok". */
export class ScriptedDestination {
  script: Answer[] = [];
  sink!: Sink;

  async start(): Promise<this> {
    this.sink = await startSink((_req, res) => (this.script.shift() ?? ((r: ServerResponse) => r.end("ok")))(res));
    return this;
  }

  url(path = "/in"): string {
    return `http://127.0.0.1:${this.sink.port}${path}`;
  }

  close(): Promise<void> {
    return this.sink.close();
  }
}

/** An answer with this status and body, its status echoed in X-Attempt-Answer. */
export const answer =
  (status: number, body: string, headers: Record<string, string> = {}): Answer =>
  (res) => {
    res.writeHead(status, { "x-attempt-answer": String(status), ...headers });
    res.end(body);
  };
