import { describe, expect, it } from "vitest";
import { corsFixes, failedFetchOutcome, noCorsRequest, outcomeHeadline, outcomeRecordError, preflightReasons, wasSent } from "../src/index.js";

describe("preflightReasons (the Fetch standard's CORS-safelisted requests)", () => {
  it("finds none for a simple request", () => {
    expect(preflightReasons("POST", [["Content-Type", "text/plain;charset=utf-8"], ["Accept", "*/*"]])).toEqual([]);
    expect(preflightReasons("get", [["Content-Language", "en-GB"]])).toEqual([]);
  });

  it("names the method, a JSON Content-Type and every other header", () => {
    expect(preflightReasons("PUT", [])).toEqual(["the method PUT"]);
    expect(preflightReasons("POST", [["Content-Type", "application/json"], ["X-Request-Id", "req-1"], ["Stripe-Signature", "t=1"], ["x-request-id", "req-2"]])).toEqual([
      "Content-Type: application/json",
      "X-Request-Id",
      "Stripe-Signature",
    ]);
    // A safelisted name with an unsafe or too long value needs one too.
    expect(preflightReasons("POST", [["Accept", "a{b}"]])).toEqual(["Accept"]);
    expect(preflightReasons("POST", [["Accept", "x".repeat(129)]])).toEqual(["Accept"]);
  });
});

describe("noCorsRequest", () => {
  it("keeps the headers a no-cors request may carry and names the others; no method but GET, HEAD, POST", () => {
    expect(noCorsRequest("POST", [["Content-Type", "application/json"], ["Accept", "*/*"], ["X-Id", "1"]])).toEqual({
      kept: [["Accept", "*/*"]],
      dropped: [["Content-Type", "application/json"], ["X-Id", "1"]],
    });
    expect(noCorsRequest("PATCH", [])).toBeNull();
  });
});

describe("what a failed browser replay was", () => {
  it("tells a refused preflight, a hidden answer, nothing listening and a time-out apart, and never calls an unsent request sent", () => {
    const refused = failedFetchOutcome({ preflight: ["X-Id"], reachable: true });
    expect(refused).toEqual({ kind: "preflight_refused", reasons: ["X-Id"] });
    expect(wasSent(refused)).toBe("no");
    expect(outcomeHeadline(refused, "http://localhost:3000")).toBe("Not sent: your local server refused the CORS preflight.");
    expect(outcomeRecordError(refused, "http://localhost:3000/hooks", "https://rehook.example")).toMatch(/^not sent: the CORS preflight/);

    const hidden = failedFetchOutcome({ preflight: [], reachable: true });
    expect(hidden).toEqual({ kind: "answer_hidden" });
    expect(wasSent(hidden)).toBe("yes");

    const nobody = failedFetchOutcome({ preflight: ["X-Id"], reachable: false });
    expect(nobody).toEqual({ kind: "nothing_listening" });
    expect(wasSent(nobody)).toBe("no");
    expect(outcomeRecordError(nobody, "http://localhost:3999/hooks", "https://rehook.example")).toBe("not sent: nothing is listening at http://localhost:3999 (connection refused)");

    expect(wasSent(failedFetchOutcome({ preflight: ["X-Id"], reachable: true, timedOutAfter: 30 }))).toBe("unknown");
    expect(wasSent(failedFetchOutcome({ preflight: [], reachable: true, timedOutAfter: 30 }))).toBe("yes");
    for (const outcome of [refused, nobody]) expect(outcomeHeadline(outcome, "http://localhost:3000")).not.toMatch(/^Sent/);
  });

  it("gives each common framework's fix with the dashboard's origin", () => {
    const fixes = corsFixes("https://rehook.example");
    expect(fixes.map((fix) => fix.framework)).toEqual(["Express", "Next.js (route handler)", "Flask (Flask-CORS)", "FastAPI", "Rails (rack-cors)"]);
    for (const { fix } of fixes) expect(fix).toContain('"https://rehook.example"');
  });
});
