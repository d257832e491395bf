import { randomBytes } from "node:crypto";
import { TRPCError } from "@trpc/server";
import { expect } from "vitest";
import { UserError } from "@rehook/core";
import { acceptInvite, captureRequest, createInvite, createUser, currentSession, type Actor, type CurrentSession, type Role, type Services, type UserView } from "@rehook/services";
import { createCaller, type ApiContext, type RequestFacts } from "../src/index.js";

export type Caller = ReturnType<typeof createCaller>;

export interface TestCaller {
  /** The procedures, called as the server-side caller (Remix loaders and actions) calls them. */
  caller: Caller;
  /** The context the caller runs with (its session, for the log-out and log-in stories). */
  context: ApiContext;
  /** Set-Cookie values the procedures added, in order. */
  cookies: string[];
}

export interface CallerOptions {
  /** Facts of an HTTP request to /trpc: present, the same-origin checks run (absent: a server-side caller). */
  request?: RequestFacts;
  clientAddress?: string | null;
  /** A services graph other than the fixture's (e.g. another SIGNUP mode). */
  services?: Services;
  /** Passed to the procedures (live subscriptions end when it aborts). */
  signal?: AbortSignal;
  /** The team this browser chose last (the rehook_team cookie); absent: none, the user's personal team. */
  teamChoice?: string | null;
}

/** Caller context with no session: what an anonymous browser gets. */
export function anonymousCaller(services: Services, options: CallerOptions = {}): TestCaller {
  return build(options.services ?? services, null, options);
}

/**
 * A caller signed in as `user` with a real session: opened as logIn opens one, then read
 * back from its cookie as the server reads every request's (currentSession).
 */
export async function callerFor(services: Services, user: { id: string }, options: CallerOptions = {}): Promise<TestCaller> {
  const cookie = await services.sessions.create(user.id);
  const session = await currentSession(services, cookie.serialized.split(";")[0]!);
  if (!session) throw new Error("the new session did not validate");
  return build(options.services ?? services, session, options);
}

function build(services: Services, session: CurrentSession | null, options: CallerOptions): TestCaller {
  const cookies: string[] = [];
  const context: ApiContext = {
    services,
    session,
    teamChoice: options.teamChoice ?? null,
    clientAddress: options.clientAddress === undefined ? "192.0.2.1" : options.clientAddress,
    ...(options.request ? { request: options.request } : {}),
    setCookie: (serialized) => cookies.push(serialized),
  };
  return { caller: createCaller(context, options.signal ? { signal: options.signal } : {}), context, cookies };
}

/** Request facts of a dashboard mutation sent as the browser sends it (JSON, our own Origin). */
export function dashboardRequest(overrides: Partial<RequestFacts> = {}): RequestFacts {
  return {
    method: "POST",
    origin: "http://rehook.test",
    secFetchSite: "same-origin",
    contentType: "application/json",
    ownOrigins: ["http://rehook.test"],
    ...overrides,
  };
}

/** The error a call was refused with (fails when it succeeds, or throws something other than a TRPCError). */
export async function refusal(call: Promise<unknown>): Promise<TRPCError> {
  let result: unknown;
  try {
    result = await call;
  } catch (error) {
    if (error instanceof TRPCError) return error;
    throw error;
  }
  throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
}

/** Asserts the call was refused with this tRPC code and message (a string matches exactly). */
export async function expectRefused(call: Promise<unknown>, code: TRPCError["code"], message?: string | RegExp): Promise<TRPCError> {
  const error = await refusal(call);
  expect(error.code, error.message).toBe(code);
  if (typeof message === "string") expect(error.message).toBe(message);
  else if (message) expect(error.message).toMatch(message);
  return error;
}

/** The use case's own code behind a refusal (null for one tRPC made itself: input, session, origin). */
export function rehookCode(error: TRPCError): string | null {
  return error.cause instanceof UserError ? error.cause.code : null;
}

/** Captures a request to the endpoint as the capture handler would, answering the stored event's id. */
export async function capture(
  services: Services,
  slug: string,
  body: string,
  headers: Array<[string, string]> = [["Content-Type", "application/json"]],
  target: { subPath?: string; query?: string } = {},
): Promise<string> {
  const outcome = await captureRequest(services, {
    slug,
    method: "POST",
    subPath: target.subPath ?? "",
    query: target.query ?? "",
    headers,
    body: Buffer.from(body),
    clientIp: "192.0.2.1",
  });
  if (outcome.kind !== "accepted") throw new Error(`capture was not accepted: ${outcome.kind}`);
  return outcome.eventId;
}

/** An id no row has. */
export const MISSING_ID = "0192f0e0-0000-7000-8000-000000000000";

/** A second user of the file's database (the fixture gives each test one). */
export function anotherUser(services: Services): Promise<UserView> {
  return createUser(services, { email: `other-${randomBytes(6).toString("hex")}@example.com`, password: "a long enough password" });
}

/** A new user who joined the actor's team with `role` through an invite link, as the dashboard joins. */
export async function newMember(services: Services, inviter: Actor, role: Role): Promise<UserView> {
  const member = await anotherUser(services);
  const token = new URL((await createInvite(services, inviter, { role })).url).searchParams.get("invite")!;
  await acceptInvite(services, { userId: member.id, token });
  return member;
}
