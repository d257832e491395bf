import { createHmac, randomBytes } from "node:crypto";
import { sign as githubSign } from "@octokit/webhooks-methods";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";
import twilio from "twilio";
import { describe, expect, it } from "vitest";
import {
  createVerifier as createSignatureCheck,
  SIGNATURE_SCHEMES,
  SIGNATURE_TOLERANCE_SECONDS,
  UserError,
  verificationRuleProblem,
  type HeaderList,
  type SignedRequest,
  type VerificationRule,
} from "../src/index.js";

// These tests are about which requests verify; signature-reasons.test.ts checks the reasons.
function createVerifier(rule: VerificationRule): (request: SignedRequest) => string {
  const check = createSignatureCheck(rule);
  return (request) => check(request).status;
}

// Every oracle below is the provider's own library or a published vector, never our signer.
// Clocks are explicit: T is the signed moment, nowSeconds is set relative to it.
const T = 1_763_870_000;
const JSON_BODY = Buffer.from('{"id":"evt_1","type":"invoice.paid","amount":1200}');
// Not UTF-8 anywhere: a lone continuation byte, an overlong NUL, 0xff.
const BINARY_BODY = Buffer.from([0x80, 0x00, 0xc0, 0x80, 0xff, 0xfe, 0x41]);

function signedRequest(headers: HeaderList, overrides: Partial<SignedRequest> = {}): SignedRequest {
  return { method: "POST", headers, body: JSON_BODY, url: "https://hooks.example.com/api/webhook/abc", nowSeconds: T + 5, ...overrides };
}

const tampered = (body: Buffer) => Buffer.concat([body.subarray(0, -1), Buffer.from([body.at(-1)! ^ 1])]);

describe("stripe", () => {
  const secret = "whsec_stripe_test_5a1d";
  const verify = createVerifier({ scheme: "stripe", secret });
  const header = (payload = JSON_BODY, withSecret = secret, timestamp = T) =>
    Stripe.webhooks.generateTestHeaderString({ payload: payload.toString(), secret: withSecret, timestamp });
  const v1Of = (stripeHeader: string) => stripeHeader.split(",").find((item) => item.startsWith("v1="))!.slice(3);

  it("accepts what stripe-node signs, within the tolerance either way", () => {
    expect(verify(signedRequest([["Stripe-Signature", header()]]))).toBe("valid");
    expect(verify(signedRequest([["stripe-signature", header()]], { nowSeconds: T + SIGNATURE_TOLERANCE_SECONDS }))).toBe("valid");
    expect(verify(signedRequest([["STRIPE-SIGNATURE", header()]], { nowSeconds: T - SIGNATURE_TOLERANCE_SECONDS }))).toBe("valid");
  });

  it("rejects a tampered body, a wrong secret and a stale or future timestamp", () => {
    expect(verify(signedRequest([["Stripe-Signature", header()]], { body: tampered(JSON_BODY) }))).toBe("invalid");
    expect(verify(signedRequest([["Stripe-Signature", header(JSON_BODY, "whsec_other")]]))).toBe("invalid");
    expect(verify(signedRequest([["Stripe-Signature", header()]], { nowSeconds: T + SIGNATURE_TOLERANCE_SECONDS + 1 }))).toBe("invalid");
    expect(verify(signedRequest([["Stripe-Signature", header()]], { nowSeconds: T - SIGNATURE_TOLERANCE_SECONDS - 1 }))).toBe("invalid");
  });

  it("reports an absent or empty header as missing", () => {
    expect(verify(signedRequest([["Content-Type", "application/json"]]))).toBe("missing");
    expect(verify(signedRequest([["Stripe-Signature", "  "]]))).toBe("missing");
  });

  it("accepts when any v1 matches (secret rolling), up to 16 of them", () => {
    const good = v1Of(header());
    const wrong = v1Of(header(JSON_BODY, "whsec_old"));
    expect(verify(signedRequest([["Stripe-Signature", `t=${T},v1=${wrong},v1=${good},v0=${wrong}`]]))).toBe("valid");
    const fifteenWrong = Array.from({ length: 15 }, () => `v1=${wrong}`).join(",");
    expect(verify(signedRequest([["Stripe-Signature", `t=${T},${fifteenWrong},v1=${good}`]]))).toBe("valid");
    expect(verify(signedRequest([["Stripe-Signature", `t=${T},${fifteenWrong},v1=${wrong},v1=${good}`]]))).toBe("invalid");
  });

  it("rejects a header without t or v1, or with only the v0 test scheme", () => {
    const good = v1Of(header());
    expect(verify(signedRequest([["Stripe-Signature", `v1=${good}`]]))).toBe("invalid");
    expect(verify(signedRequest([["Stripe-Signature", `t=${T}`]]))).toBe("invalid");
    expect(verify(signedRequest([["Stripe-Signature", `t=${T},v0=${good}`]]))).toBe("invalid");
  });
});

describe("github", () => {
  const secret = "gh-webhook-secret";
  const verify = createVerifier({ scheme: "github", secret });

  it("matches GitHub's documented example", () => {
    // docs.github.com, "Validating webhook deliveries": the test values section.
    const documented = createVerifier({ scheme: "github", secret: "It's a Secret to Everybody" });
    const request = signedRequest([["X-Hub-Signature-256", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"]], {
      body: Buffer.from("Hello, World!"),
    });
    expect(documented(request)).toBe("valid");
  });

  it("accepts what @octokit/webhooks-methods signs, hex in any case", async () => {
    const signature = await githubSign(secret, JSON_BODY.toString());
    expect(verify(signedRequest([["x-hub-signature-256", signature]]))).toBe("valid");
    expect(verify(signedRequest([["X-Hub-Signature-256", `sha256=${signature.slice(7).toUpperCase()}`]]))).toBe("valid");
  });

  it("rejects a tampered body or a wrong secret; missing without the header", async () => {
    const signature = await githubSign(secret, JSON_BODY.toString());
    expect(verify(signedRequest([["X-Hub-Signature-256", signature]], { body: tampered(JSON_BODY) }))).toBe("invalid");
    expect(verify(signedRequest([["X-Hub-Signature-256", await githubSign("other", JSON_BODY.toString())]]))).toBe("invalid");
    // The legacy SHA-1 header alone is not the rule.
    expect(verify(signedRequest([["X-Hub-Signature", "sha1=0123"]]))).toBe("missing");
  });

  it("reads the first occurrence of a repeated header", async () => {
    const signature = await githubSign(secret, JSON_BODY.toString());
    expect(verify(signedRequest([["X-Hub-Signature-256", signature], ["x-hub-signature-256", "sha256=00"]]))).toBe("valid");
    expect(verify(signedRequest([["X-Hub-Signature-256", "sha256=00"], ["x-hub-signature-256", signature]]))).toBe("invalid");
  });
});

describe("shopify", () => {
  // Shopify publishes no test vector: computed with
  // printf '{"id":1,"email":"a@example.com"}' | openssl dgst -sha256 -hmac shpss_rehook-test-secret -binary | base64
  const secret = "shpss_rehook-test-secret";
  const body = Buffer.from('{"id":1,"email":"a@example.com"}');
  const signature = "G4m+krgnc6aXvX3W343NTeb1XcgDw2vFM3h+Wkkyd9Q=";
  const verify = createVerifier({ scheme: "shopify", secret });

  it("accepts the openssl vector", () => {
    expect(verify(signedRequest([["X-Shopify-Hmac-Sha256", signature]], { body }))).toBe("valid");
    expect(verify(signedRequest([["x-shopify-hmac-sha256", signature]], { body }))).toBe("valid");
  });

  it("rejects a tampered body, a wrong secret, an altered or garbage base64; missing without the header", () => {
    expect(verify(signedRequest([["X-Shopify-Hmac-Sha256", signature]], { body: tampered(body) }))).toBe("invalid");
    expect(createVerifier({ scheme: "shopify", secret: "other" })(signedRequest([["X-Shopify-Hmac-Sha256", signature]], { body }))).toBe("invalid");
    expect(verify(signedRequest([["X-Shopify-Hmac-Sha256", signature.replace(/=$/, "")]], { body }))).toBe("invalid");
    expect(verify(signedRequest([["X-Shopify-Hmac-Sha256", "%%%not base64%%%"]], { body }))).toBe("invalid");
    expect(verify(signedRequest([], { body }))).toBe("missing");
  });

  it("verifies a binary body over its bytes", () => {
    // printf '\x80\x00\xc0\x80\xff\xfe\x41' | openssl dgst -sha256 -hmac shpss_rehook-test-secret -binary | base64
    const binarySignature = "En5gVdcXewZ+zY7xZlmO7PDO/Mncna6Nd9EHWBNxqyo=";
    expect(verify(signedRequest([["X-Shopify-Hmac-Sha256", binarySignature]], { body: BINARY_BODY }))).toBe("valid");
    expect(verify(signedRequest([["X-Shopify-Hmac-Sha256", binarySignature]], { body: tampered(BINARY_BODY) }))).toBe("invalid");
  });
});

describe("slack", () => {
  // Slack's worked example (docs.slack.dev/authentication/verifying-requests-from-slack).
  const secret = "8f742231b10e8888abcd99yyyzzz85a5";
  const timestamp = 1531420618;
  const body = Buffer.from(
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  );
  const signature = "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";
  const verify = createVerifier({ scheme: "slack", secret });
  const headers = (ts = String(timestamp), sig = signature): HeaderList => [
    ["X-Slack-Request-Timestamp", ts],
    ["X-Slack-Signature", sig],
  ];
  const at = (nowSeconds: number) => ({ body, nowSeconds });

  it("accepts Slack's documented example within the tolerance either way", () => {
    expect(verify(signedRequest(headers(), at(timestamp + 60)))).toBe("valid");
    expect(verify(signedRequest(headers(), at(timestamp - SIGNATURE_TOLERANCE_SECONDS)))).toBe("valid");
  });

  it("rejects a stale or future timestamp, a tampered body and a wrong secret", () => {
    expect(verify(signedRequest(headers(), at(timestamp + SIGNATURE_TOLERANCE_SECONDS + 1)))).toBe("invalid");
    expect(verify(signedRequest(headers(), at(timestamp - SIGNATURE_TOLERANCE_SECONDS - 1)))).toBe("invalid");
    expect(verify(signedRequest(headers(), { ...at(timestamp), body: tampered(body) }))).toBe("invalid");
    expect(createVerifier({ scheme: "slack", secret: "another-secret" })(signedRequest(headers(), at(timestamp)))).toBe("invalid");
  });

  it("is missing without a signature, invalid with a signature but no or a garbled timestamp", () => {
    expect(verify(signedRequest([["X-Slack-Request-Timestamp", String(timestamp)]], at(timestamp)))).toBe("missing");
    expect(verify(signedRequest([["X-Slack-Signature", signature]], at(timestamp)))).toBe("invalid");
    for (const ts of ["1.531420618e9", "-1531420618", "99999999999999999999999", "NaN", "0x5b479a4a"]) {
      expect(verify(signedRequest(headers(ts), at(timestamp)))).toBe("invalid");
    }
    expect(verify(signedRequest(headers(), at(Number.NaN)))).toBe("invalid");
  });
});

describe("twilio", () => {
  const authToken = "12345";
  const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
  const params = { CallSid: "CA1234567890ABCDE", Caller: "+12349013030", Digits: "1234", From: "+12349013030", To: "+18005551212" };
  const formBody = Buffer.from(new URLSearchParams(params).toString());
  const form: HeaderList = [["Content-Type", "application/x-www-form-urlencoded; charset=utf-8"]];
  const verify = createVerifier({ scheme: "twilio", secret: authToken });
  const formRequest = (signature: string, overrides: Partial<SignedRequest> = {}) =>
    signedRequest([...form, ["X-Twilio-Signature", signature]], { url, body: formBody, ...overrides });

  it("accepts a form POST signed as twilio-node computes it", () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    expect(twilio.validateRequest(authToken, signature, url, params)).toBe(true);
    expect(verify(formRequest(signature))).toBe("valid");
  });

  it("sorts repeated parameters the way twilio-node does", () => {
    const repeated = { To: "+18005551212", MediaUrl: ["https://b.example/2", "https://a.example/1"] };
    const body = Buffer.from("To=%2B18005551212&MediaUrl=https%3A%2F%2Fb.example%2F2&MediaUrl=https%3A%2F%2Fa.example%2F1");
    const signature = twilio.getExpectedTwilioSignature(authToken, url, repeated);
    expect(verify(formRequest(signature, { body }))).toBe("valid");
  });

  it("rejects a changed parameter or a wrong token; missing without the header", () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, url, params);
    const changed = Buffer.from(new URLSearchParams({ ...params, Digits: "9999" }).toString());
    expect(verify(formRequest(signature, { body: changed }))).toBe("invalid");
    expect(verify(formRequest(twilio.getExpectedTwilioSignature("54321", url, params)))).toBe("invalid");
    expect(verify(signedRequest(form, { url, body: formBody }))).toBe("missing");
  });

  it("accepts the URL with the default port added or removed, as twilio-node does", () => {
    const withPort = "https://mycompany.com:443/myapp.php?foo=1&bar=2";
    const signedWithPort = twilio.getExpectedTwilioSignature(authToken, withPort, params);
    expect(twilio.validateRequest(authToken, signedWithPort, url, params)).toBe(true);
    expect(verify(formRequest(signedWithPort))).toBe("valid");
    const signedWithout = twilio.getExpectedTwilioSignature(authToken, url, params);
    expect(verify(formRequest(signedWithout, { url: withPort }))).toBe("valid");
    const httpSigned = twilio.getExpectedTwilioSignature(authToken, "http://mycompany.com:80/myapp.php", params);
    expect(verify(formRequest(httpSigned, { url: "http://mycompany.com/myapp.php" }))).toBe("valid");
    // Another port is another URL.
    expect(verify(formRequest(signedWithout, { url: "https://mycompany.com:8443/myapp.php?foo=1&bar=2" }))).toBe("invalid");
  });

  it("checks a JSON body against the URL's bodySHA256, as validateRequestWithBody does", () => {
    const bodyUrl = `https://mycompany.com/myapp?bodySHA256=${twilio.getExpectedBodyHash(JSON_BODY.toString())}`;
    const signature = twilio.getExpectedTwilioSignature(authToken, bodyUrl, {});
    expect(twilio.validateRequestWithBody(authToken, signature, bodyUrl, JSON_BODY.toString())).toBe(true);
    const jsonRequest = (overrides: Partial<SignedRequest> = {}) =>
      signedRequest([["Content-Type", "application/json"], ["X-Twilio-Signature", signature]], { url: bodyUrl, ...overrides });
    expect(verify(jsonRequest())).toBe("valid");
    expect(verify(jsonRequest({ body: tampered(JSON_BODY) }))).toBe("invalid");
    expect(verify(jsonRequest({ url: bodyUrl.replace("myapp", "other") }))).toBe("invalid");
  });

  it("refuses a form of more than 1000 parameters without parsing it", () => {
    const stuffed = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`P${i}`, "v"]));
    const signature = twilio.getExpectedTwilioSignature(authToken, url, stuffed);
    const body = Buffer.from(new URLSearchParams(stuffed).toString());
    expect(verify(formRequest(signature, { body }))).toBe("invalid");
    const fewer = Object.fromEntries(Object.entries(stuffed).slice(0, 1000));
    const fewerBody = Buffer.from(new URLSearchParams(fewer).toString());
    expect(verify(formRequest(twilio.getExpectedTwilioSignature(authToken, url, fewer), { body: fewerBody }))).toBe("valid");
  });

  it("rejects a JSON body the signature does not cover; a bodiless GET is signed by its URL", () => {
    const signature = twilio.getExpectedTwilioSignature(authToken, url, {});
    expect(verify(signedRequest([["X-Twilio-Signature", signature]], { url, body: JSON_BODY }))).toBe("invalid");
    expect(verify(signedRequest([["X-Twilio-Signature", signature]], { method: "GET", url, body: Buffer.alloc(0) }))).toBe("valid");
  });
});

describe("standard-webhooks", () => {
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  const verify = createVerifier({ scheme: "standard-webhooks", secret });
  const id = "msg_2Kj9";
  const headers = (signature: string, timestamp = T): HeaderList => [
    ["webhook-id", id],
    ["webhook-timestamp", String(timestamp)],
    ["webhook-signature", signature],
  ];
  const signed = (body: Buffer = JSON_BODY, withSecret = secret) => new Webhook(withSecret).sign(id, new Date(T * 1000), body);

  it("accepts what the standardwebhooks library signs, with or without the whsec_ prefix", () => {
    expect(verify(signedRequest(headers(signed())))).toBe("valid");
    const bare = createVerifier({ scheme: "standard-webhooks", secret: secret.slice("whsec_".length) });
    expect(bare(signedRequest(headers(signed())))).toBe("valid");
    expect(verify(signedRequest(headers(signed()).map(([name, value]) => [name.toUpperCase(), value] as [string, string])))).toBe("valid");
  });

  it("rejects a tampered body, a wrong secret and a stale or future timestamp", () => {
    expect(verify(signedRequest(headers(signed()), { body: tampered(JSON_BODY) }))).toBe("invalid");
    expect(verify(signedRequest(headers(signed(JSON_BODY, `whsec_${randomBytes(32).toString("base64")}`))))).toBe("invalid");
    expect(verify(signedRequest(headers(signed()), { nowSeconds: T + SIGNATURE_TOLERANCE_SECONDS + 1 }))).toBe("invalid");
    expect(verify(signedRequest(headers(signed()), { nowSeconds: T - SIGNATURE_TOLERANCE_SECONDS - 1 }))).toBe("invalid");
    expect(verify(signedRequest(headers(signed()), { nowSeconds: T + SIGNATURE_TOLERANCE_SECONDS }))).toBe("valid");
  });

  it("is missing without webhook-signature, invalid without webhook-id or webhook-timestamp", () => {
    expect(verify(signedRequest([["webhook-id", id], ["webhook-timestamp", String(T)]]))).toBe("missing");
    expect(verify(signedRequest(headers(signed()).filter(([name]) => name !== "webhook-id")))).toBe("invalid");
    expect(verify(signedRequest(headers(signed()).filter(([name]) => name !== "webhook-timestamp")))).toBe("invalid");
  });

  it("accepts when one of several signatures matches", () => {
    const other = signed(JSON_BODY, `whsec_${randomBytes(32).toString("base64")}`);
    expect(verify(signedRequest(headers(`${other} v1a,c29tZSBlZDI1NTE5 ${signed()}`)))).toBe("valid");
  });

  it("verifies a binary body over its bytes", () => {
    // The standardwebhooks library decodes a Buffer payload as UTF-8 before signing, so it cannot sign
    // these bytes; computed with openssl instead (key = the secret's base64 part decoded, as hex):
    // { printf 'msg_bin.1763870000.'; printf '\x80\x00\xc0\x80\xff\xfe\x41'; } |
    //   openssl dgst -sha256 -mac HMAC -macopt hexkey:31f290f6bf06298aab4f08d43c3f082cf648a362da2da4b0 -binary | base64
    const binaryVerify = createVerifier({ scheme: "standard-webhooks", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" });
    const binaryHeaders: HeaderList = [
      ["webhook-id", "msg_bin"],
      ["webhook-timestamp", String(T)],
      ["webhook-signature", "v1,wBKLBLY9i8s3P4OqVorH29QulSo/BPEdNBc9eXN3a0I="],
    ];
    expect(binaryVerify(signedRequest(binaryHeaders, { body: BINARY_BODY }))).toBe("valid");
    expect(binaryVerify(signedRequest(binaryHeaders, { body: tampered(BINARY_BODY) }))).toBe("invalid");
  });
});

describe("hmac-sha256 (generic)", () => {
  // Oracle: node's HMAC directly, written out here, not our verifier's helpers.
  const secret = "generic-shared-secret";
  const mac = (body: Buffer, key = secret) => createHmac("sha256", key).update(body);

  it("accepts prefix + hex in any case, and base64", () => {
    const hexRule = createVerifier({ scheme: "hmac-sha256", secret, header: "X-Signature", prefix: "sha256=" });
    const hex = mac(JSON_BODY).digest("hex");
    expect(hexRule(signedRequest([["x-signature", `sha256=${hex}`]]))).toBe("valid");
    expect(hexRule(signedRequest([["X-SIGNATURE", `sha256=${hex.toUpperCase()}`]]))).toBe("valid");
    expect(hexRule(signedRequest([["X-Signature", hex]]))).toBe("invalid");
    const base64Rule = createVerifier({ scheme: "hmac-sha256", secret, header: "X-Sig", encoding: "base64" });
    expect(base64Rule(signedRequest([["X-Sig", mac(JSON_BODY).digest("base64")]]))).toBe("valid");
    expect(base64Rule(signedRequest([["X-Sig", mac(JSON_BODY).digest("hex")]]))).toBe("invalid");
  });

  it("rejects a tampered body or a wrong secret; missing without the header; binary bodies verify", () => {
    const verify = createVerifier({ scheme: "hmac-sha256", secret, header: "X-Signature" });
    const hex = mac(JSON_BODY).digest("hex");
    expect(verify(signedRequest([["X-Signature", hex]], { body: tampered(JSON_BODY) }))).toBe("invalid");
    expect(verify(signedRequest([["X-Signature", mac(JSON_BODY, "other").digest("hex")]]))).toBe("invalid");
    expect(verify(signedRequest([["X-Other", hex]]))).toBe("missing");
    expect(verify(signedRequest([["X-Signature", mac(BINARY_BODY).digest("hex")]], { body: BINARY_BODY }))).toBe("valid");
  });
});

describe("hostile input", () => {
  const rules: VerificationRule[] = [
    { scheme: "stripe", secret: "s" },
    { scheme: "github", secret: "s" },
    { scheme: "shopify", secret: "s" },
    { scheme: "slack", secret: "s" },
    { scheme: "twilio", secret: "s" },
    { scheme: "standard-webhooks", secret: "whsec_c2VjcmV0" },
    { scheme: "hmac-sha256", secret: "s", header: "X-Signature", prefix: "sha256=" },
  ];
  const signatureHeaders = ["Stripe-Signature", "X-Hub-Signature-256", "X-Shopify-Hmac-Sha256", "X-Slack-Signature", "X-Twilio-Signature", "webhook-signature", "X-Signature"];
  const garbage = [
    "=",
    ",,,,",
    "t=99999999999999999999999999,v1=zz",
    "t=NaN,v1=",
    "v0=",
    "sha256=",
    "v1,@@@@ v1, v1,====",
    "\u0000\u0001\uffff",
    "💥".repeat(100),
    `t=${T},${"v1=abc,".repeat(20_000)}`,
    "x".repeat(200_000),
  ];

  it("answers invalid, never throws, for garbage in every signature header", () => {
    for (const rule of rules) {
      const verify = createVerifier(rule);
      for (const value of garbage) {
        const headers: HeaderList = [
          ...signatureHeaders.map((name) => [name, value] as [string, string]),
          ["webhook-id", value],
          ["webhook-timestamp", value],
          ["X-Slack-Request-Timestamp", value],
        ];
        for (const url of ["not a url", "https://[::1", `https://h/?bodySHA256=${value}`]) {
          expect(verify(signedRequest(headers, { url, nowSeconds: Number.NaN }))).toBe("invalid");
          expect(verify(signedRequest(headers, { url, body: BINARY_BODY }))).toBe("invalid");
        }
      }
    }
  });
});

describe("verificationRuleProblem", () => {
  it("accepts a usable rule of every scheme", () => {
    const usable: VerificationRule[] = SIGNATURE_SCHEMES.map((scheme) =>
      scheme === "standard-webhooks"
        ? { scheme, secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }
        : scheme === "hmac-sha256"
          ? { scheme, secret: "s3cret", header: "X-Signature", encoding: "base64", prefix: "sha256=" }
          : { scheme, secret: "s3cret" },
    );
    for (const rule of usable) expect(verificationRuleProblem(rule)).toBeUndefined();
    expect(verificationRuleProblem({ scheme: "standard-webhooks", secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" })).toBeUndefined();
  });

  it("explains an unusable rule in one line", () => {
    const unusable: VerificationRule[] = [
      { scheme: "stripe", secret: "" },
      { scheme: "github", secret: "x".repeat(513) },
      { scheme: "standard-webhooks", secret: "whsec_" },
      { scheme: "standard-webhooks", secret: "whsec_not base64!" },
      { scheme: "standard-webhooks", secret: "abc" },
      { scheme: "hmac-sha256", secret: "s" },
      { scheme: "hmac-sha256", secret: "s", header: "X Signature" },
      { scheme: "hmac-sha256", secret: "s", header: "X-Signature:" },
      { scheme: "hmac-sha256", secret: "s", header: "X-Signature", prefix: "sha256=\n" },
      { scheme: "hmac-sha256", secret: "s", header: "X-Signature", encoding: "base32" as never },
      { scheme: "md5" as never, secret: "s" },
    ];
    for (const rule of unusable) {
      const problem = verificationRuleProblem(rule);
      expect(problem, JSON.stringify(rule)).toMatch(/^[^\n]+$/);
    }
    expect(verificationRuleProblem({ scheme: "github", secret: "x".repeat(512) })).toBeUndefined();
  });

  it("makes createVerifier refuse an unusable rule", () => {
    expect(() => createVerifier({ scheme: "hmac-sha256", secret: "s" })).toThrow(UserError);
  });
});
