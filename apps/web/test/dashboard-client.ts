import { createHash } from "node:crypto";

/** A browser-like client for the dashboard's HTTP surface: cookies kept, same-origin headers. */
export class DashboardClient {
  cookie: string | null = null;

  constructor(
    readonly baseUrl: string,
    private readonly origin: string = baseUrl,
  ) {}

  /** Posts an HTML form (as a browser does: urlencoded, with Origin). */
  async postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.baseUrl), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: this.origin, ...this.cookieHeader(), ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    this.keepCookie(response);
    return response;
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<Response> {
    const response = await fetch(new URL(path, this.baseUrl), { redirect: "manual", headers: { ...this.cookieHeader(), ...headers } });
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
    const response = await fetch(new URL(`/trpc/${path}`, this.baseUrl), {
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
      if (pair.startsWith("rehook_session=")) this.cookie = pair.endsWith("=") ? null : pair;
    }
  }
}

export interface TrpcEnvelope {
  result?: { data: { json: unknown } };
  error?: { json: { message: string; data: { code: string; httpStatus: number; rehookCode: string | null } } };
}

export const sha256Hex = (text: string) => createHash("sha256").update(text).digest("hex");
