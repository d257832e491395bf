import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";

export interface HttpRequestInit {
  method?: string;
  /** An object, or name, value, name, value… (kept in order, repeats included). */
  headers: Record<string, string> | string[];
  body?: string | Buffer;
  /** Longest silence allowed: before the answer starts, and between any two chunks of it. */
  idleTimeoutMs: number;
  signal: AbortSignal;
}

/** A request that met a silence longer than its idle timeout: `code` as node's errors carry it. */
export class NoAnswerError extends Error {
  override name = "NoAnswerError";
  constructor(
    message: string,
    readonly code = "ETIMEDOUT",
  ) {
    super(message);
  }
}

/**
 * One request, to the Rehook server or to the local server, on node:http. Not undici: a
 * server that hangs up just as the connection opens can leave an undici request (and Node's
 * fetch) pending for ever, deaf to its abort signal, with nothing holding the event loop. node:http reports that
 * hang-up as an error, and its socket timeout bounds every silence.
 */
export function sendRequest(url: string, init: HttpRequestInit): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const send = url.startsWith("https:") ? httpsRequest : httpRequest;
    const req = send(url, { method: init.method ?? "GET", headers: init.headers, signal: init.signal });
    req.setTimeout(init.idleTimeoutMs, () => req.destroy(new NoAnswerError(`nothing received for ${init.idleTimeoutMs / 1000} s`)));
    req.once("response", resolve);
    req.once("error", reject);
    req.end(init.body);
  });
}

/** The whole answer as text. */
export async function readText(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
