import { describe, expect, it } from "vitest";
import { isSecretKey, REDACTED, redactFields, redactText } from "../src/redact.js";

const KEY = `pk_live_${"A1b2".repeat(8)}`;
const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw/+=";
const SLACK = "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX";
const SESSION = "abcdefghijklmnopqrstuvwxyz234567abcdefgh";

describe("redactText", () => {
  it("masks API keys, signing secrets, chat hook URLs, session ids and Authorization credentials wherever they appear", () => {
    const text = `key ${KEY} secret=${SECRET} hook ${SLACK} cookie rehook_session=${SESSION}; id ${SESSION} auth Bearer ${KEY}x Basic dXNlcjpwYXNz`;
    const out = redactText(text);
    for (const secret of [KEY, SECRET, SLACK, SESSION, "dXNlcjpwYXNz"]) expect(out).not.toContain(secret);
    expect(out).toContain(`Bearer ${REDACTED}`);
    expect(out.startsWith(`key ${REDACTED} secret=${REDACTED}`)).toBe(true);
  });

  it("leaves ordinary text alone", () => {
    const text = "POST /api/v1/events answered 200 in 12 ms for endpoint orders-7f3a with key pk_live_AbCd";
    expect(redactText(text)).toBe(text);
  });
});

describe("redactFields", () => {
  it("masks secret-named fields whatever their value, at any depth, and secret-shaped values in any field", () => {
    const out = redactFields({
      authorization: "anything",
      Cookie: "a=b",
      "set-cookie": ["x=y"],
      api_key: "k",
      signing_secret: "s",
      password: "p",
      session_id: "i",
      webhook_url: "https://chat.example.com/hook",
      headers: { "Stripe-Signature": "t=1,v1=abc", accept: "*/*" },
      note: `saw ${SECRET}`,
      count: 3,
    });
    expect(out).toEqual({
      authorization: REDACTED,
      Cookie: REDACTED,
      "set-cookie": REDACTED,
      api_key: REDACTED,
      signing_secret: REDACTED,
      password: REDACTED,
      session_id: REDACTED,
      webhook_url: REDACTED,
      headers: { "Stripe-Signature": REDACTED, accept: "*/*" },
      note: `saw ${REDACTED}`,
      count: 3,
    });
  });

  it("masks secrets inside errors' stacks", () => {
    const out = redactFields({ error: new Error(`posting to ${SLACK} failed`) });
    expect(String(out.error)).toContain(`posting to ${REDACTED} failed`);
  });

  it("does not take ordinary names for secrets", () => {
    for (const key of ["method", "path", "status", "duration_ms", "request_id", "sessions_purged", "endpoint"]) expect(isSecretKey(key)).toBe(false);
  });
});
