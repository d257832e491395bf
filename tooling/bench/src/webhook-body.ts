/** A typical small webhook, the load of the capture benches: a Stripe-like event of 566 bytes. */
export const STRIPE_LIKE_BODY = JSON.stringify({
  id: "evt_1QbenchAAAAAAAAAAAAAAAA",
  object: "event",
  type: "payment_intent.succeeded",
  created: 1_790_000_000,
  data: { object: { id: "pi_3Qbench", amount: 2_000, currency: "usd", status: "succeeded", metadata: { order: "A-10023" } } },
  livemode: false,
  pending_webhooks: 1,
  request: { id: "req_bench", idempotency_key: "5b8f1c2e-2b6b-4b8a-9a53-9e7f0f6f1a2b" },
  padding: "x".repeat(200),
});
