import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";
import { stallUpload, uploadLargeBody, type StalledUpload } from "./upload-client.js";

// MAX_BUFFERED_BODY_BYTES caps what request bodies hold in memory at once in the process:
// stalled uploads cannot add up past it, a body that does not fit gets a readable 503, and a
// sender that hangs up mid-body gives its bytes back.

const KIB = 1024;
const MAX_PAYLOAD = 256 * KIB;
const BUDGET = 1024 * KIB;
const DECLARED = 250 * KIB;

let t: TestServer;
let slug: string;

beforeAll(async () => {
  t = await startTestServer({ MAX_PAYLOAD_BYTES: String(MAX_PAYLOAD), MAX_BUFFERED_BODY_BYTES: String(BUDGET) });
  slug = (await t.createEndpoint("Budget")).slug;
});
afterAll(() => t.close());

const budget = () => t.rehook.bodyBudget;

describe("the body budget", () => {
  it("keeps many stalled uploads within it, refuses the rest with a readable 503, and gets every byte back when they hang up", async () => {
    expect(budget().limit).toBe(BUDGET);
    const stalled: StalledUpload[] = await Promise.all(
      Array.from({ length: 12 }, () => stallUpload(t.rehook.url, head("POST", `/api/webhook/${slug}`, [["Content-Length", String(DECLARED)]]), Buffer.alloc(KIB, 0x61))),
    );
    // Four declared bodies fit (1000 KiB of 1024 KiB); the other eight are answered without waiting for their bodies.
    await waitFor(() => stalled.filter((upload) => upload.answered()).length === 8, "eight uploads to be answered");
    const refused = stalled.filter((upload) => upload.answered());
    const waiting = stalled.filter((upload) => !upload.answered());
    expect(budget().used).toBe(4 * DECLARED);
    expect(budget().used).toBeLessThanOrEqual(BUDGET);

    // A refused sender may finish its body and reads the 503 (the rest is read and dropped).
    for (const upload of refused) upload.socket.end(Buffer.alloc(DECLARED - KIB, 0x61));
    for (const upload of refused) {
      const answer = await upload.answer;
      expect(answer.status).toBe(503);
      expect(answer.headers["retry-after"]).toBe("5");
      expect(answer.headers.connection).toBe("close");
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "unavailable", message: expect.stringContaining("too many request bodies") } });
    }

    // A chunked body takes its bytes as they come: its first chunk past the room left is refused.
    const chunked = await uploadLargeBody(t.rehook.url, head("POST", `/api/webhook/${slug}`, [["Transfer-Encoding", "chunked"]]), { bodyBytes: 128 * KIB, chunked: true });
    expect(chunked.status).toBe(503);
    expect(budget().used).toBe(4 * DECLARED);

    // The dashboard's routes share the budget: a sign-up form does not fit either.
    const formHead = head("POST", "/signup", [["Origin", t.rehook.url], ["Content-Type", "application/x-www-form-urlencoded"], ["Content-Length", String(60 * KIB)]]);
    const form = await uploadLargeBody(t.rehook.url, formHead.replace("Host: localhost", `Host: ${new URL(t.rehook.url).host}`), { bodyBytes: 60 * KIB });
    expect(form.status).toBe(503);

    // Senders that hang up mid-body give their bytes back.
    for (const upload of waiting) upload.socket.destroy();
    await waitFor(() => budget().used === 0, "the budget to be given back");
    const after = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [["Content-Length", String(DECLARED)]]), Buffer.alloc(DECLARED, 0x61)]);
    expect(after.status).toBe(200);
    expect(budget().used).toBe(0);
  });
});
