import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  body: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  ok: number;
  notOk: number;
  errors: number;
  latencyP50: number;
  latencyP99: number;
}

/** POSTs the same JSON body over keep-alive connections for a fixed time (loopback only). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    method: "POST",
    connections: options.connections,
    duration: options.durationSeconds,
    headers: { "content-type": "application/json", "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" },
    body: options.body,
  });
  return {
    requestsPerSecond: Math.round(result.requests.average),
    ok: result["2xx"],
    notOk: result.non2xx,
    errors: result.errors + result.timeouts,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
  };
}
