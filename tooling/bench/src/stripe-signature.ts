import { createHmac } from "node:crypto";

/** The signing secret of the bench's verifying endpoint. */
export const STRIPE_SECRET = "whsec_bench_0123456789abcdef0123456789abcdef";

/** A Stripe-Signature header for `body`, signed now (Stripe's rule: HMAC-SHA256 of "{t}.{body}"). */
export function stripeSignature(body: string, secret: string, nowSeconds = Math.floor(Date.now() / 1000)): string {
  return `t=${nowSeconds},v1=${createHmac("sha256", secret).update(`${nowSeconds}.${body}`).digest("hex")}`;
}
