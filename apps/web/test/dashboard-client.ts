import { request } from "node:http";

/**
 * fetch() always sends the URL's own Host; this sends the given one, as a browser at that
 * address (behind a proxy, or an attacker's rebinding page) would.
 */
export function fetchWithHost(url: URL, host: string, init: { method?: string; headers?: Record<string, string>; body?: string }): Promise<Response> {
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: init.method ?? "GET", headers: { ...init.headers, host } }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
      incoming.on("end", () => {
        const headers = new Headers();
        for (let i = 0; i < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
        const status = incoming.statusCode ?? 0;
        const body = status === 204 || status === 304 ? null : Buffer.concat(chunks);
        resolve(new Response(body, { status, headers }));
      });
      incoming.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(init.body);
  });
}

/** A browser-like client for the dashboard's HTTP surface: cookies kept, same-origin headers. */
export class DashboardClient {
  cookie: string | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly origin: string = baseUrl,
    /** A Host header other than the URL's (see fetchWithHost). */
    private readonly host?: string,
  ) {}

  private send(path: string, init: { method?: string; headers: Record<string, string>; body?: string }): Promise<Response> {
    const url = new URL(path, this.baseUrl);
    if (this.host) return fetchWithHost(url, this.host, init);
    return fetch(url, { ...init, redirect: "manual" });
  }

  /** Posts an HTML form (as a browser does: urlencoded, with Origin). */
  async postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const response = await this.send(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: this.origin, ...this.cookieHeader(), ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    this.keepCookie(response);
    return response;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await this.send(path, { headers: { ...this.cookieHeader(), ...headers } });
    this.keepCookie(response);
    return response;
  }

  /** A tRPC query (GET /trpc/<path>?input=…); answers the parsed JSON envelope. */
  async query(path: string, input?: unknown): Promise<{ status: number; body: TrpcEnvelope }> {
    const search = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
    const response = await this.get(`/trpc/${path}${search}`);
    return { status: response.status, body: (await response.json()) as TrpcEnvelope };
  }

  /** A tRPC mutation, as the dashboard sends it unless headers say otherwise. */
  async mutate(path: string, input: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: TrpcEnvelope }> {
    const response = await this.send(`/trpc/${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: this.origin, ...this.cookieHeader(), ...headers },
      body: JSON.stringify({ json: input }),
    });
    this.keepCookie(response);
    return { status: response.status, body: (await response.json()) as TrpcEnvelope };
  }

  sessionId(): string | null {
    return this.cookie?.split("=")[1] ?? null;
  }

  private cookieHeader(): Record<string, string> {
    return this.cookie ? { cookie: this.cookie } : {};
  }

  private keepCookie(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const pair = header.split(";")[0]!;
      if (/^(__Host-)?rehook_session=/.test(pair)) this.cookie = pair.endsWith("=") ? null : pair;
    }
  }
}

export interface TrpcEnvelope {
  result?: { data: { json: unknown } };
  error?: { json: { message: string; data: { code: string; httpStatus: number; rehookCode: string | null } } };
}

