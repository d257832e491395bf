import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  body: string;
  /** Paths under `url`'s origin each connection cycles through (spreads the load over endpoints); default: url's own. */
  paths?: string[];
  /** Called with each response body (for checking what was acknowledged). */
  onResponse?: (status: number, body: string) => void;
  /** Sent on top of the default headers (a signature, say). */
  headers?: Record<string, string>;
  /**
   * Replace `[<id>]` in the body with an id of each request's own: no two bodies alike. Done
   * here, per request, not by autocannon's idReplacement: that one sizes Content-Length for
   * 27-character ids while hyperid 3 makes 24, so the server waits for bytes never sent.
   */
  uniqueIds?: boolean;
}

export interface LoadResult {
  requestsPerSecond: number;
  ok: number;
  notOk: number;
  errors: number;
  latencyP50: number;
  latencyP99: number;
}

const HEADERS = { "content-type": "application/json", "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" };

/** POSTs the same JSON body over keep-alive connections for a fixed time (loopback only). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const { onResponse } = options;
  let sent = 0;
  const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
  const uniqueBody = (request: autocannon.Request) => ({ ...request, body: options.body.replaceAll("[<id>]", `${run}_${(sent += 1).toString(36)}`) });
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: (options.paths ?? [undefined]).map((path) => ({
      method: "POST" as const,
      headers: { ...HEADERS, ...options.headers },
      body: options.body,
      ...(path ? { path } : {}),
      ...(options.uniqueIds ? { setupRequest: uniqueBody } : {}),
      ...(onResponse ? { onResponse: (status: number, body: string) => onResponse(status, body) } : {}),
    })),
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

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}
