import { createHmac } from "node:crypto";
import Stripe from "stripe";
import twilio from "twilio";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import {
  createVerifier,
  createVerifierOrRefusal,
  SIGNATURE_REASONS,
  SIGNATURE_TOLERANCE_SECONDS,
  signatureReasonText,
  type HeaderList,
  type SignatureReason,
  type SignedRequest,
} from "../src/index.js";
import * as browser from "../src/browser.js";

// Why a signature is not valid, per reason and per scheme: what the event stores as
// signature_reason and the dashboard's badge says in a sentence.
const T = 1_763_870_000;
const BODY = Buffer.from('{"id":"evt_1","type":"invoice.paid"}');
const request = (headers: HeaderList, overrides: Partial<SignedRequest> = {}): SignedRequest => ({
  method: "POST",
  headers,
  body: BODY,
  url: "https://hooks.example.com/api/webhook/abc",
  nowSeconds: T + 5,
  ...overrides,
});
const invalid = (reason: SignatureReason) => ({ status: "invalid", reason });
const STALE = { nowSeconds: T + SIGNATURE_TOLERANCE_SECONDS + 1 };

describe("signature reasons", () => {
  it("are null for a valid signature and missing_header for an absent one", () => {
    const verify = createVerifier({ scheme: "github", secret: "s3cret" });
    const signature = `sha256=${createHmac("sha256", "s3cret").update(BODY).digest("hex")}`;
    expect(verify(request([["X-Hub-Signature-256", signature]]))).toEqual({ status: "valid", reason: null });
    expect(verify(request([]))).toEqual({ status: "missing", reason: "missing_header" });
  });

  describe("stripe", () => {
    const secret = "whsec_reasons";
    const verify = createVerifier({ scheme: "stripe", secret });
    const header = (timestamp = T, withSecret = secret) => Stripe.webhooks.generateTestHeaderString({ payload: BODY.toString(), secret: withSecret, timestamp });

    it("says stale_timestamp for a correct signature outside the tolerance, either way", () => {
      expect(verify(request([["Stripe-Signature", header()]], STALE))).toEqual(invalid("stale_timestamp"));
      expect(verify(request([["Stripe-Signature", header()]], { nowSeconds: T - SIGNATURE_TOLERANCE_SECONDS - 1 }))).toEqual(invalid("stale_timestamp"));
    });

    it("says mismatch for another secret and malformed for a header without t or v1, or a t that is not seconds", () => {
      expect(verify(request([["Stripe-Signature", header(T, "whsec_other")]]))).toEqual(invalid("mismatch"));
      expect(verify(request([["Stripe-Signature", "v1=abc"]]))).toEqual(invalid("malformed"));
      expect(verify(request([["Stripe-Signature", `t=${T}`]]))).toEqual(invalid("malformed"));
      expect(verify(request([["Stripe-Signature", "t=1e9,v1=abc"]]))).toEqual(invalid("malformed"));
    });
  });

  describe("slack", () => {
    const secret = "slack-signing-secret";
    const verify = createVerifier({ scheme: "slack", secret });
    const sign = (timestamp: number) => `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:`).update(BODY).digest("hex")}`;

    it("says missing_header without the timestamp header, stale_timestamp for an old one", () => {
      expect(verify(request([["X-Slack-Signature", sign(T)]]))).toEqual(invalid("missing_header"));
      const headers: HeaderList = [["X-Slack-Signature", sign(T)], ["X-Slack-Request-Timestamp", String(T)]];
      expect(verify(request(headers))).toEqual({ status: "valid", reason: null });
      expect(verify(request(headers, STALE))).toEqual(invalid("stale_timestamp"));
    });

    it("says malformed for another version's signature, mismatch for a changed body", () => {
      expect(verify(request([["X-Slack-Signature", sign(T).replace("v0=", "v1=")], ["X-Slack-Request-Timestamp", String(T)]]))).toEqual(invalid("malformed"));
      expect(verify(request([["X-Slack-Signature", sign(T)], ["X-Slack-Request-Timestamp", String(T)]], { body: Buffer.from("{}") }))).toEqual(invalid("mismatch"));
    });
  });

  describe("standard-webhooks", () => {
    const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const verify = createVerifier({ scheme: "standard-webhooks", secret });
    const signature = new Webhook(secret).sign("msg_1", new Date(T * 1000), BODY);

    it("says missing_header without webhook-id, malformed without a v1 signature, stale_timestamp for an old one", () => {
      expect(verify(request([["webhook-timestamp", String(T)], ["webhook-signature", signature]]))).toEqual(invalid("missing_header"));
      const headers = (value: string): HeaderList => [["webhook-id", "msg_1"], ["webhook-timestamp", String(T)], ["webhook-signature", value]];
      expect(verify(request(headers("v2,abc")))).toEqual(invalid("malformed"));
      expect(verify(request(headers(signature), STALE))).toEqual(invalid("stale_timestamp"));
      expect(verify(request(headers(signature)))).toEqual({ status: "valid", reason: null });
    });
  });

  describe("github and the generic rule", () => {
    it("say malformed for a missing prefix and mismatch for a wrong signature", () => {
      const github = createVerifier({ scheme: "github", secret: "s3cret" });
      expect(github(request([["X-Hub-Signature-256", "deadbeef"]]))).toEqual(invalid("malformed"));
      expect(github(request([["X-Hub-Signature-256", "sha256=deadbeef"]]))).toEqual(invalid("mismatch"));
      const generic = createVerifier({ scheme: "hmac-sha256", secret: "s3cret", header: "X-Sig", prefix: "sha256=" });
      expect(generic(request([["X-Sig", "md5=00"]]))).toEqual(invalid("malformed"));
      expect(generic(request([["X-Sig", "sha256=00"]]))).toEqual(invalid("mismatch"));
    });
  });

  describe("twilio", () => {
    it("says unsigned_body for a JSON body without bodySHA256, mismatch for a wrong signature", () => {
      const url = "https://hooks.example.com/api/webhook/abc";
      const verify = createVerifier({ scheme: "twilio", secret: "12345" });
      const urlSignature = twilio.getExpectedTwilioSignature("12345", url, {});
      expect(verify(request([["X-Twilio-Signature", urlSignature]], { url }))).toEqual(invalid("unsigned_body"));
      expect(verify(request([["X-Twilio-Signature", "AAAA"]], { method: "GET", url, body: Buffer.alloc(0) }))).toEqual(invalid("mismatch"));
    });
  });

  it("says bad_secret for every request under a saved rule that can no longer be used", () => {
    const verify = createVerifierOrRefusal({ scheme: "standard-webhooks", secret: "whsec_not base64!" });
    expect(verify(request([["webhook-signature", "v1,abc"]]))).toEqual(invalid("bad_secret"));
  });

  it("each have one sentence, the same from the browser entry; a stale timestamp is not called a wrong secret", () => {
    for (const reason of SIGNATURE_REASONS) {
      expect(signatureReasonText(reason)).toMatch(/^[A-Z].*\.$/);
      expect(browser.signatureReasonText(reason)).toBe(signatureReasonText(reason));
    }
    expect(new Set(SIGNATURE_REASONS.map(signatureReasonText)).size).toBe(SIGNATURE_REASONS.length);
    expect(signatureReasonText("stale_timestamp")).toMatch(/timestamp is more than 5 minutes from the server's clock/);
    expect(signatureReasonText("stale_timestamp")).not.toMatch(/secret/);
  });
});
