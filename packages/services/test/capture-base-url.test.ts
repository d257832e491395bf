import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createOrm, createPool, ensureEventPartitions, GroupCommitWriter, type Orm, type Pool } from "@rehook/db";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { captureRequest, createEndpoint, createUser, listTeams, getEndpoint, type CaptureInput } from "../src/index.js";

// CAPTURE_BASE_URL: the capture URLs endpoints show, and the URL a Twilio signature is checked
// against (Twilio signs the URL it called: the capture host's, or BASE_URL's for a sender set up before).

let db: TestDatabase;
let pool: Pool;
let orm: Orm;
let writer: GroupCommitWriter;
let teamId: string;
const baseUrl = "https://rehook.example.com";
const captureBaseUrl = "https://capture.example.net";
const secret = "twilio-auth-token-1234";

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  await ensureEventPartitions(pool, Date.now());
  writer = new GroupCommitWriter(pool);
  const { id: userId } = await createUser({ orm }, { email: "capture-base@example.com", password: "a long enough password" });
  // createUser makes the personal team that owns the endpoints here.
  teamId = (await listTeams({ orm }, { userId }))[0]!.id;
});
afterAll(async () => {
  await writer.drain();
  await orm.close(true);
  await pool.end();
  await db.drop();
});

const ctx = () => ({ orm, writer, baseUrl, captureBaseUrl, addressPolicy: { allowPrivate: true }, retentionDays: 30 });

function twilioRequest(slug: string, host: string, signedUrl: string): CaptureInput {
  const body = "Body=hello&From=%2B15551234567";
  const signature = createHmac("sha1", secret).update(`${signedUrl}Body${"hello"}From+15551234567`).digest("base64");
  const headers: Array<[string, string]> = [
    ["Host", host],
    ["Content-Type", "application/x-www-form-urlencoded"],
    ["X-Twilio-Signature", signature],
  ];
  return { slug, method: "POST", subPath: "", query: "", headers, body: Buffer.from(body), clientIp: null };
}

async function signatureOf(outcome: Awaited<ReturnType<typeof captureRequest>>): Promise<string | null> {
  expect(outcome.kind).toBe("accepted");
  const rows = await db.query<{ signature: string | null }>("select signature from events where id = $1", [(outcome as { eventId: string }).eventId]);
  return rows[0]!.signature;
}

describe("CAPTURE_BASE_URL", () => {
  it("is where endpoints' capture URLs start", async () => {
    const endpoint = await createEndpoint(ctx(), { teamId, name: "Shown" });
    expect(endpoint.webhookUrl).toBe(`${captureBaseUrl}/api/webhook/${endpoint.slug}`);
    expect((await getEndpoint(ctx(), { teamId, endpoint: { id: endpoint.id } })).webhookUrl).toBe(endpoint.webhookUrl);
  });

  it("checks a Twilio signature against the URL of the host the request came to", async () => {
    const endpoint = await createEndpoint(ctx(), { teamId, name: "Twilio", verification: { scheme: "twilio", secret } });
    const onCapture = `${captureBaseUrl}/api/webhook/${endpoint.slug}`;
    const onDashboard = `${baseUrl}/api/webhook/${endpoint.slug}`;
    expect(await signatureOf(await captureRequest(ctx(), twilioRequest(endpoint.slug, "capture.example.net", onCapture)))).toBe("valid");
    expect(await signatureOf(await captureRequest(ctx(), twilioRequest(endpoint.slug, "rehook.example.com", onDashboard)))).toBe("valid");
    expect(await signatureOf(await captureRequest(ctx(), twilioRequest(endpoint.slug, "rehook.example.com", onCapture)))).toBe("invalid");
  });
});
