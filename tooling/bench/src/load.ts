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
  /** Replace `[<id>]` in the body with an id of each request's own (autocannon's idReplacement): no two bodies alike. */
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
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    idReplacement: options.uniqueIds ?? false,
    requests: (options.paths ?? [undefined]).map((path) => ({
      method: "POST" as const,
      headers: { ...HEADERS, ...options.headers },
      body: options.body,
      ...(path ? { path } : {}),
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
