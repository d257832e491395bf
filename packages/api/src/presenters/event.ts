import { curlCommand, describePayload, rawBodyFileName, webhookUrl } from "@rehook/core";
import { captureBaseOf, contentEncodingOf, inspectEventBody, type EventView, type Services } from "@rehook/services";

/**
 * One event for its dashboard page: its body ready to show (JSON, text or a hex dump in
 * `payload`; the payload inspector's view in `body`: the text exactly, multipart parts, a
 * Content-Encoding undone) and a curl command. A body over the preview size comes as its
 * first bytes (`bodyTruncated`, `sizeBytes` the whole); /api/events/{id}/body downloads it.
 */
export async function dashboardEvent(found: EventView, ctx: { services: Services }) {
  const { body, response, ...event } = found;
  const captureUrl = `${webhookUrl(captureBaseOf(ctx.services), event.endpointSlug)}${event.path}${event.query ? `?${event.query}` : ""}`;
  const request = { method: event.method, url: captureUrl, headers: event.headers };
  const inspected = await inspectEventBody({ body, bodyTruncated: event.bodyTruncated, contentType: event.contentType, headers: event.headers });
  const fileName = rawBodyFileName(event.id, event.contentType, contentEncodingOf(event.headers));
  return {
    ...event,
    payload: describePayload(body, event.contentType),
    body: inspected,
    /** Bytes of the body that `payload` shows (all of them unless bodyTruncated). */
    bodyPreviewBytes: body.byteLength,
    /** The name /api/events/{id}/body saves the whole body under. */
    bodyFileName: fileName,
    /** The capture URL the event came to (path and query included): where `curl` sends it. */
    captureUrl,
    // A cut body would make a wrong request: the command reads the downloaded file instead.
    curl: event.bodyTruncated ? `${curlCommand({ ...request, body: new Uint8Array() })} \\\n  --data-binary @${fileName}` : curlCommand({ ...request, body }),
    response: response && {
      ...response,
      body: undefined,
      bodyBase64: response.body ? Buffer.from(response.body).toString("base64") : null,
      payload: response.body ? describePayload(response.body, null) : null,
    },
  };
}

/** One delivery attempt for the attempt timeline: the answer's body as base64 and described for display. */
export function dashboardAttempt<Attempt extends { responseBody: Uint8Array | null }>(found: Attempt) {
  const { responseBody, ...attempt } = found;
  return {
    ...attempt,
    bodyBase64: responseBody ? Buffer.from(responseBody).toString("base64") : null,
    payload: responseBody ? describePayload(responseBody, null) : null,
  };
}
