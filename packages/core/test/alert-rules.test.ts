import { describe, expect, it } from "vitest";
import { judgeAlertPost, judgeEmailSend, nextFiring, pastThreshold, slackPayload, summaryAlert, testAlert } from "../src/index.js";

const rate = (endpointId: string, part: number, total: number) => ({ endpointId, part, total });

describe("threshold rules", () => {
  it("compares in whole numbers: health below the threshold, invalid signatures above it, never on a small sample", () => {
    expect(pastThreshold("health_low", rate("a", 9, 10), 90)).toBe(false); // exactly 90%
    expect(pastThreshold("health_low", rate("a", 89, 100), 90)).toBe(true);
    expect(pastThreshold("signature_invalid_rate", rate("a", 2, 10), 20)).toBe(false);
    expect(pastThreshold("signature_invalid_rate", rate("a", 3, 10), 20)).toBe(true);
    expect(pastThreshold("health_low", rate("a", 0, 9), 90)).toBe(false);
  });

  it("fires once per crossing, clears on recovery, and keeps the state of an endpoint without enough samples", () => {
    const first = nextFiring("health_low", 90, [], [rate("a", 0, 10), rate("b", 10, 10)]);
    expect(first).toEqual({ started: [rate("a", 0, 10)], firing: ["a"] });
    expect(nextFiring("health_low", 90, first.firing, [rate("a", 1, 10)])).toEqual({ started: [], firing: ["a"] });
    expect(nextFiring("health_low", 90, first.firing, [rate("a", 0, 3)])).toEqual({ started: [], firing: ["a"] });
    const recovered = nextFiring("health_low", 90, first.firing, [rate("a", 10, 10)]);
    expect(recovered).toEqual({ started: [], firing: [] });
    expect(nextFiring("health_low", 90, recovered.firing, [rate("a", 0, 10)]).started).toHaveLength(1);
  });
});

describe("judging a channel's answer", () => {
  const answer = (status: number | null, body = "") => ({ status, body, retryAfter: null, error: status === null ? "connect ECONNREFUSED" : null });

  it("pauses a Discord, Teams or webhook rule whose hook is gone, retries 5xx and drops other 4xx", () => {
    expect(judgeAlertPost("discord", answer(204), 0)).toEqual({ kind: "posted" });
    for (const status of [401, 403, 404, 410]) expect(judgeAlertPost("teams", answer(status), 0).kind).toBe("pause");
    expect(judgeAlertPost("webhook", answer(400), 0)).toEqual({ kind: "rejected", reason: "the webhook webhook refused the alert (HTTP 400)" });
    expect(judgeAlertPost("webhook", answer(503), 0)).toMatchObject({ kind: "retry", failures: 1 });
    // Slack keeps its own rules: an unknown 404 body is not fatal there, channel_not_found is.
    expect(judgeAlertPost("slack", answer(404, "no_such_thing"), 0).kind).toBe("rejected");
    expect(judgeAlertPost("slack", answer(404, "channel_not_found"), 0).kind).toBe("pause");
  });

  it("retries SMTP 4xx and connection failures, pauses a refused recipient, drops other 5xx", () => {
    expect(judgeEmailSend({ sent: true }, 0)).toEqual({ kind: "posted" });
    expect(judgeEmailSend({ sent: false, responseCode: 451, error: "try later" }, 0)).toMatchObject({ kind: "retry", afterMs: 1000 });
    expect(judgeEmailSend({ sent: false, responseCode: null, error: "ECONNREFUSED" }, 4)).toMatchObject({ kind: "give_up" });
    expect(judgeEmailSend({ sent: false, responseCode: 550, error: "no such user" }, 0).kind).toBe("pause");
    expect(judgeEmailSend({ sent: false, responseCode: 552, error: "too big" }, 0).kind).toBe("rejected");
  });
});

describe("Slack payloads and summaries", () => {
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5));
  it("keep tenant text plain (no mrkdwn), within Block Kit's limits", () => {
    const alert = { ...testAlert({ ruleName: "<!channel> *x*", kind: "delivery_failed", at, url: "https://rehook.example/x" }), title: "t".repeat(300) };
    const payload = slackPayload(alert);
    expect(JSON.stringify(payload)).not.toContain("mrkdwn");
    expect((payload.blocks[0] as { text: { text: string } }).text.text).toHaveLength(150);
  });

  it("fold alerts into one message that counts them", () => {
    const alerts = Array.from({ length: 12 }, (_, n) => testAlert({ ruleName: `r${n}`, kind: "delivery_failed", at, url: "u" }));
    const summary = summaryAlert(alerts, "https://rehook.example/events");
    expect(summary.title).toBe("12 alerts");
    expect(summary.summary.split("\n")).toHaveLength(11);
    expect(summary.summary).toMatch(/… and 2 more$/);
  });
});
