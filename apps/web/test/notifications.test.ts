import type { IncomingMessage, ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

// The notifier's posting, end to end on a real server (FORWARD_TIMEOUT_MS and BASE_URL of its
// own): each message variant, folding a burst, and the provider's Retry-After. The settings'
// use cases (triggers, pausing and resuming, the test message) are tested in
// packages/services/test/notification-settings.test.ts.

interface Post {
  url: string;
  at: number;
  json: { text: string; blocks: Array<{ type: string; text?: { type: string; text: string }; fields?: Array<{ type: string; text: string }>; elements?: Array<{ text: string }> }> };
}

/** A fake Slack-compatible provider: records each post and answers as the test says. */
class FakeProvider {
  posts: Post[] = [];
  answer: (post: Post, res: ServerResponse) => void = (_post, res) => res.end("ok");
  sink!: Sink;

  async start(): Promise<this> {
    this.sink = await startSink((req: IncomingMessage, res, body) => {
      const post = { url: req.url ?? "", at: Date.now(), json: JSON.parse(body.toString()) as Post["json"] };
      this.posts.push(post);
      this.answer(post, res);
    });
    return this;
  }

  get base(): string {
    return `http://127.0.0.1:${this.sink.port}/services`;
  }
}

let t: TestServer;
let provider: FakeProvider;
let destination: Sink;
let user: DashboardClient;
let mode: "ok" | "503" | "hang" = "ok";

async function capture(slug: string, type: string): Promise<string> {
  const body = Buffer.from(JSON.stringify({ type }));
  const headers: Array<[string, string]> = [["Content-Type", "application/json"], ["Stripe-Signature", "t=1,v1=x"], ["Content-Length", String(body.length)]];
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, headers), body]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

async function endpoint(name: string, destinationUrl: string | null): Promise<{ id: string; slug: string }> {
  const created = await user.mutate("endpoints.create", { name, destinationUrl });
  expect(created.status).toBe(200);
  return created.body.result!.data.json as { id: string; slug: string };
}

async function saveSettings(webhookUrl: string, triggers: string[]): Promise<void> {
  const saved = await user.mutate("notifications.save", { enabled: true, webhookUrl, triggers });
  expect(saved.status).toBe(200);
}

const fields = (post: Post) => Object.fromEntries(post.json.blocks[2]!.fields!.map((f) => f.text.split("\n") as [string, string]));

beforeAll(async () => {
  provider = await new FakeProvider().start();
  destination = await startSink((_req, res) => {
    if (mode === "hang") return; // never answers: the forward times out
    res.statusCode = mode === "503" ? 503 : 200;
    res.end(mode === "503" ? "unavailable" : "ok");
  });
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", CHAT_HOOKS_BASE: provider.base, FORWARD_TIMEOUT_MS: "500", BASE_URL: "https://rehook.example" });
  // The dashboard answers at BASE_URL's host only: send it, as the TLS proxy in front would.
  user = new DashboardClient(t.rehook.url, "https://rehook.example", "rehook.example");
  expect((await user.postForm("/signup", { email: "chat@example.com", password: "a long enough password" })).status).toBe(303);
});
afterAll(async () => {
  await t.close();
  await provider.sink.close();
  await destination.close();
});

describe("chat notifications", () => {
  let forwarding: { id: string; slug: string };
  let captureOnly: { id: string; slug: string };

  beforeAll(async () => {
    forwarding = await endpoint("stripe-prod", `http://127.0.0.1:${destination.port}/hooks`);
    captureOnly = await endpoint("inbox", null);
    await saveSettings(`${provider.base}/T000/B000/XXXX`, ["failed", "delivered", "captured"]);
  });

  it("posts each variant with the spec's title, summary, fields and footer", async () => {
    mode = "ok";
    const delivered = await capture(forwarding.slug, "invoice.paid");
    await waitFor(() => provider.posts.length === 1, "the delivered message");
    mode = "503";
    const failed = await capture(forwarding.slug, "invoice.failed");
    await waitFor(() => provider.posts.length === 2, "the failed message");
    mode = "hang";
    const timedOut = await capture(forwarding.slug, "invoice.slow");
    await waitFor(() => provider.posts.length === 3, "the timeout message");
    const captured = await capture(captureOnly.slug, "ping");
    await waitFor(() => provider.posts.length === 4, "the captured message");
    mode = "ok";

    const [d, f, slow, c] = provider.posts;
    for (const post of provider.posts) {
      expect(post.url).toBe("/services/T000/B000/XXXX");
      expect(post.json.blocks.map((b) => b.type)).toEqual(["header", "section", "section", "context"]);
      expect(Object.keys(fields(post))).toEqual(["*Source*", "*Status*", "*Latency*", "*Endpoint*", "*Destination*", "*Event ID*"]);
      expect(post.json.blocks[3]!.elements![0]!.text).toMatch(/^Rehook · stripe · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    }
    expect(d!.json.blocks[0]!.text).toEqual({ type: "plain_text", text: "Webhook Delivered" });
    expect(d!.json.blocks[1]!.text!.text).toMatch(/^invoice\.paid was successfully forwarded in \d+ms$/);
    expect(fields(d!)).toMatchObject({
      "*Source*": "stripe",
      "*Status*": "delivered",
      "*Endpoint*": "stripe-prod",
      "*Destination*": `http://127.0.0.1:${destination.port}/hooks`,
      "*Event ID*": `<https://rehook.example/events/${delivered}|${delivered}>`,
    });
    expect(d!.json.text).toContain("Webhook Delivered");

    expect(f!.json.blocks[0]!.text!.text).toBe("Webhook Failed");
    expect(f!.json.blocks[1]!.text!.text).toBe("invoice.failed failed to forward: destination answered 503");
    expect(fields(f!)["*Event ID*"]).toBe(`<https://rehook.example/events/${failed}|${failed}>`);
    expect(slow!.json.blocks[1]!.text!.text).toBe("invoice.slow failed to forward after the timeout of 500ms");
    expect(fields(slow!)["*Event ID*"]).toContain(timedOut);

    expect(c!.json.blocks[0]!.text!.text).toBe("Webhook Captured");
    expect(c!.json.blocks[1]!.text!.text).toBe("ping was captured");
    expect(fields(c!)).toMatchObject({ "*Status*": "captured", "*Endpoint*": "inbox", "*Destination*": "none (capture only)", "*Latency*": "—" });
    expect(fields(c!)["*Event ID*"]).toContain(captured);
    // At most about one post per second to one URL.
    for (let i = 1; i < provider.posts.length; i += 1) expect(provider.posts[i]!.at - provider.posts[i - 1]!.at).toBeGreaterThanOrEqual(900);
  });

  it("folds a burst of 50 failures into a few messages, one of them a summary with counts per endpoint", async () => {
    const before = provider.posts.length;
    mode = "503";
    await Promise.all(Array.from({ length: 50 }, (_, i) => capture(forwarding.slug, `burst.${i}`)));
    await waitFor(async () => (await t.db.query("select 1 from notification_outbox")).length === 0 && provider.posts.length > before, "the burst to be posted", 30_000);
    mode = "ok";
    const posted = provider.posts.slice(before);
    expect(posted.length).toBeLessThanOrEqual(3);
    const summaries = posted.filter((post) => post.json.text.includes("more failed event"));
    expect(summaries.length).toBeGreaterThanOrEqual(1);
    const counted = posted.reduce((sum, post) => {
      const match = /(\d+) more failed events? on stripe-prod in the last minute/.exec(post.json.text);
      return sum + (match ? Number(match[1]) : 1);
    }, 0);
    expect(counted).toBe(50);
  });

  it("waits for Retry-After when the provider answers 429", async () => {
    const before = provider.posts.length;
    let first = true;
    provider.answer = (_post, res) => {
      if (first) {
        first = false;
        res.writeHead(429, { "retry-after": "2" });
        res.end("rate_limited");
      } else res.end("ok");
    };
    await saveSettings(`${provider.base}/T000/B000/XXXX`, ["captured"]);
    await capture(captureOnly.slug, "limited");
    await waitFor(() => provider.posts.length >= before + 2, "the post after Retry-After", 15_000);
    provider.answer = (_post, res) => res.end("ok");
    const [refused, retried] = provider.posts.slice(before);
    expect(retried!.at - refused!.at).toBeGreaterThanOrEqual(1900);
  });
});
