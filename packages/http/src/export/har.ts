import { decodeUtf8Text, reasonPhrase, webhookUrl, type ExportedEvent, type HeaderList } from "@rehook/core";
import { toBase64 } from "./base64.js";

/** The start of a HAR 1.2 document; entries follow, joined by ",", then HAR_END. */
export const harStart = (version: string) => `{"log":{"version":"1.2","creator":{"name":"Rehook","version":${JSON.stringify(version)}},"entries":[`;
export const HAR_END = "]}}\n";

const headerFields = (headers: HeaderList) => headers.map(([name, value]) => ({ name, value }));

function headerValue(headers: HeaderList, name: string): string | undefined {
  return headers.find(([key]) => key.toLowerCase() === name)?.[1];
}

/** A response body as HAR content text: itself when it is UTF-8 text, else its base64 with `encoding` (a HAR 1.2 field of content). */
function contentText(body: Uint8Array): { text: string; encoding?: "base64" } {
  const text = decodeUtf8Text(body);
  return text === undefined ? { text: toBase64(body), encoding: "base64" } : { text };
}

/**
 * A request body as HAR postData text. HAR 1.2's postData has no `encoding`: a body that is
 * not UTF-8 text is base64 with the custom field `_encoding` (custom fields start with "_").
 */
function postDataText(body: Uint8Array): { text: string; _encoding?: "base64" } {
  const text = decodeUtf8Text(body);
  return text === undefined ? { text: toBase64(body), _encoding: "base64" } : { text };
}

function queryString(query: string): Array<{ name: string; value: string }> {
  if (query === "") return [];
  return [...new URLSearchParams(query)].map(([name, value]) => ({ name, value }));
}

/**
 * One HAR 1.2 entry: the captured request at its full capture URL (sub-path and query) and
 * the destination's answer. An event with no answer (not forwarded yet, or a network error)
 * has status 0 and an empty content, as browsers' HAR exports write a request without one.
 */
export function harEntry(event: ExportedEvent, baseUrl: string) {
  const url = `${webhookUrl(baseUrl, event.endpointSlug)}${event.path}${event.query ? `?${event.query}` : ""}`;
  const mimeType = event.contentType ?? headerValue(event.headers, "content-type") ?? "application/octet-stream";
  const response = event.response;
  const responseType = response ? (headerValue(response.headers, "content-type") ?? "") : "";
  const responseBody = response?.body ?? null;
  return {
    startedDateTime: event.receivedAt.toISOString(),
    time: event.latencyMs ?? 0,
    request: {
      method: event.method,
      url,
      httpVersion: "HTTP/1.1",
      cookies: [],
      headers: headerFields(event.headers),
      queryString: queryString(event.query),
      ...(event.body.byteLength > 0 ? { postData: { mimeType, ...postDataText(event.body) } } : {}),
      headersSize: -1,
      bodySize: event.body.byteLength,
    },
    response: {
      status: response?.status ?? 0,
      statusText: response ? reasonPhrase(response.status) : "",
      httpVersion: response ? "HTTP/1.1" : "",
      cookies: [],
      headers: response ? headerFields(response.headers) : [],
      content: { size: responseBody?.byteLength ?? 0, mimeType: responseType, ...(responseBody ? contentText(responseBody) : { text: "" }) },
      redirectURL: "",
      headersSize: -1,
      bodySize: responseBody ? responseBody.byteLength : response ? 0 : -1,
    },
    cache: {},
    timings: { send: 0, wait: event.latencyMs ?? 0, receive: 0 },
    ...(event.error ? { comment: event.error } : {}),
  };
}
