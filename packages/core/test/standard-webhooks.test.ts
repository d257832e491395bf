import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { generateSigningSecret, signStandardWebhook } from "../src/index.js";

describe("Standard Webhooks signing", () => {
  it("produces headers the reference library verifies", () => {
    const secret = generateSigningSecret();
    const body = Buffer.from(JSON.stringify({ type: "invoice.paid", amount: 12 }));
    const headers = signStandardWebhook({ id: "msg_01", timestampSeconds: Date.now() / 1000, body, secret });
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(body.toString(), { ...headers });
    expect(verified).toEqual({ type: "invoice.paid", amount: 12 });
  });

  it("fails verification when a byte of the body changes", () => {
    const secret = generateSigningSecret();
    const headers = signStandardWebhook({ id: "msg_02", timestampSeconds: Date.now() / 1000, body: Buffer.from('{"a":1}'), secret });
    expect(() => new Webhook(secret).verify('{"a":2}', { ...headers })).toThrow();
  });

  it("signs binary bodies over their bytes", () => {
    const secret = generateSigningSecret();
    const a = signStandardWebhook({ id: "m", timestampSeconds: 1, body: Buffer.from([0xff, 0x00, 0xfe]), secret });
    const b = signStandardWebhook({ id: "m", timestampSeconds: 1, body: Buffer.from([0xff, 0x00, 0xfd]), secret });
    expect(a["webhook-signature"]).not.toBe(b["webhook-signature"]);
  });
});
