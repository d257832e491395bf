import { randomBytes } from "node:crypto";
import { request, type IncomingMessage } from "node:http";
import { expect } from "vitest";
import { hashPassword } from "@rehook/auth";
import { loadConfig, silentLogger, uuidv7, type Role } from "@rehook/core";
import { addTeamMember, insertUser } from "@rehook/db";
import {
  ALL_CONTRACTS,
  actorFor,
  captureRequest,
  insertTeamNamed,
  TEAM_COOKIE,
  type Actor,
  type Services,
} from "@rehook/services";
import { startServer, type RehookServer } from "@rehook/server";
import type { TestDatabase } from "@rehook/vitest-config/postgres";

// What the team tests of this package share: a real server on a test database, users made
// without the cost of a password hash per user, their sessions as a browser holds them, and
// plain HTTP helpers for the transports (tRPC over HTTP, server-sent events).

/** A real Rehook server (every transport) on the database, at a free loopback port. */
export function startTeamServer(database: TestDatabase): Promise<RehookServer> {
  const config = loadConfig(
    { PORT: "0", HOST: "127.0.0.1", DATABASE_URL: database.url, LOG_LEVEL: "silent", ALLOW_PRIVATE_DESTINATIONS: "true", API_RATE_LIMIT_PER_MINUTE: "100000" },
    "/unused",
  );
  return startServer(config, silentLogger);
}

let passwordHash: Promise<string> | undefined;

export interface Person {
  id: string;
  email: string;
  /** Their personal team (they own it). */
  personalTeamId: string;
}

/** A user with their personal team, inserted directly (one password hash for every user of a run: none of them logs in with it). */
export async function newPerson(services: Services, label: string): Promise<Person> {
  passwordHash ??= hashPassword(`${randomBytes(12).toString("hex")}`);
  const email = `${label}-${randomBytes(6).toString("hex")}@example.com`;
  const em = services.orm.em.fork();
  const user = await insertUser(em, { id: uuidv7(), email, passwordHash: await passwordHash });
  const team = await insertTeamNamed(em, { name: email, ownerId: user.id, personal: true });
  return { id: user.id, email, personalTeamId: team.id };
}

/** Adds the person to a team with a role, as an accepted invite does; answers them as an actor there. */
export async function joinTeam(services: Services, person: Person, teamId: string, role: Role): Promise<Actor> {
  await addTeamMember(services.orm.em.fork(), teamId, person.id, role);
  const { actor } = await actorFor(services, { userId: person.id, teamId });
  expect(actor.teamId).toBe(teamId);
  return actor;
}

/** The Cookie header of a signed-in browser of the user that chose `teamId` in the switcher. */
export async function browserCookie(services: Services, userId: string, teamId: string | null): Promise<string> {
  const session = (await services.sessions.create(userId)).serialized.split(";")[0]!;
  return teamId ? `${session}; ${TEAM_COOKIE}=${teamId}` : session;
}

/** Captures a request to the endpoint as the capture handler does; answers the stored event's id. */
export async function captureInto(services: Services, slug: string, body: string): Promise<string> {
  const outcome = await captureRequest(services, { slug, method: "POST", subPath: "/hook", query: "", headers: [["Content-Type", "application/json"]], body: Buffer.from(body), clientIp: "192.0.2.1" });
  if (outcome.kind !== "accepted") throw new Error(`capture was not accepted: ${outcome.kind}`);
  return outcome.eventId;
}

const contracts = ALL_CONTRACTS;

/** Every contract by its name (the tRPC path it is served at, mostly). */
export const CONTRACTS = new Map(contracts.map((contract) => [contract.name, contract]));

/** The role an /api/v1 route needs: its contract's; the streamed reads (stream, body, export) are a viewer's. */
export function restRole(operationId: string): Role {
  return contracts.find((contract) => contract.rest?.operationId === operationId)?.role ?? "viewer";
}

/** The refusal's sentence for an operation that needs `needed` (runContract's). */
export function roleRefusal(needed: Role, held: Role): RegExp {
  return new RegExp(`needs the ${needed} role in this team; you are an? ${held}\\.$`);
}

export interface TrpcAnswer {
  status: number;
  /** The procedure's result (superjson's json part), or undefined for an error. */
  data: unknown;
  /** tRPC's error code (NOT_FOUND…) for an error. */
  code?: string;
  message?: string;
}

/** Calls a procedure over HTTP as the dashboard's browser does (same origin, JSON). */
export async function callTrpc(baseUrl: string, path: string, kind: "query" | "mutation", input: unknown, cookie: string): Promise<TrpcAnswer> {
  const encoded = encodeURIComponent(JSON.stringify({ json: input }));
  const response =
    kind === "query"
      ? await fetch(`${baseUrl}/trpc/${path}${input === undefined ? "" : `?input=${encoded}`}`, { headers: { cookie } })
      : await fetch(`${baseUrl}/trpc/${path}`, {
          method: "POST",
          headers: { cookie, origin: baseUrl, "content-type": "application/json" },
          body: JSON.stringify({ json: input }),
        });
  const answer = (await response.json()) as { result?: { data: { json: unknown } }; error?: { json: { message: string; data: { code: string } } } };
  return {
    status: response.status,
    data: answer.result?.data.json,
    ...(answer.error ? { code: answer.error.json.data.code, message: answer.error.json.message } : {}),
  };
}

/** An open server-sent events response: what arrived so far, and how it ended. */
export interface OpenStream {
  response: IncomingMessage;
  text(): string;
  ended: Promise<void>;
  close(): void;
}

/** Opens a streaming GET; resolves once the answer's head arrived (the body keeps arriving into text()). */
export function openStream(url: string, headers: Record<string, string>): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { headers: { accept: "text/event-stream", ...headers } }, (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      const ended = new Promise<void>((settle) => {
        response.once("end", () => settle());
        response.once("close", () => settle());
        response.once("error", () => settle());
      });
      resolve({ response, text: () => text, ended, close: () => response.destroy() });
    });
    outgoing.once("error", reject);
    outgoing.end();
  });
}

/** The tRPC live feed's URL (events.live over server-sent events) with a filter. */
export function liveFeedUrl(baseUrl: string, filter: Record<string, unknown> = {}): string {
  return `${baseUrl}/trpc/events.live?input=${encodeURIComponent(JSON.stringify({ json: filter }))}`;
}
