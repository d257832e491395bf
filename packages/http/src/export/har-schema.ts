/*
 * HAR 1.2 as a JSON Schema (draft 2020-12), written from the HAR 1.2 specification (W3C Web
 * Performance group's draft, "HTTP Archive (HAR) format", version 1.2): every object has the
 * fields the spec lists, required where the spec does not say "optional", and no others except
 * custom fields, which the spec requires to start with "_". The OpenAPI document serves it as
 * the schema of the HAR export (GET /api/v1/events/export?format=har), so every test that reads
 * an export through the API harness checks it. (The npm `har-validator` and `har-schema`
 * packages were last published in 2020 and are deprecated.)
 */

type Schema = Record<string, unknown>;

/** An object with exactly these fields (optional ones may be left out), plus "_custom" ones. */
function record(required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return {
    type: "object",
    required: Object.keys(required),
    properties: { ...required, ...optional, comment: { type: "string" } },
    patternProperties: { "^_": {} },
    additionalProperties: false,
  };
}

const text = { type: "string" };
const integer = { type: "integer" };
const number = { type: "number" };
/** -1 where the spec allows "not available". */
const sizeOrMinusOne = { type: "integer", minimum: -1 };
const timing = { type: "number", minimum: -1 };
const nameValues = { type: "array", items: record({ name: text, value: text }) };
const cookies = {
  type: "array",
  items: record({ name: text, value: text }, { path: text, domain: text, expires: { type: ["string", "null"] }, httpOnly: { type: "boolean" }, secure: { type: "boolean" } }),
};

export const HAR_1_2_SCHEMA: Schema = {
  title: "HAR 1.2",
  description:
    "An HTTP Archive 1.2 document (one entry per event). Custom fields start with `_`: a request body that is not UTF-8 text is base64 in `postData.text` with `postData._encoding: \"base64\"` (HAR 1.2's `encoding` exists on response `content` only).",
  ...record({
    log: record(
      {
        version: { const: "1.2" },
        creator: record({ name: text, version: text }),
        entries: {
          type: "array",
          items: record(
            {
              startedDateTime: { type: "string", format: "date-time" },
              time: number,
              request: record(
                { method: text, url: text, httpVersion: text, cookies, headers: nameValues, queryString: nameValues, headersSize: sizeOrMinusOne, bodySize: sizeOrMinusOne },
                {
                  postData: record(
                    { mimeType: text },
                    { text, params: { type: "array", items: record({ name: text }, { value: text, fileName: text, contentType: text }) } },
                  ),
                },
              ),
              response: record({
                status: integer,
                statusText: text,
                httpVersion: text,
                cookies,
                headers: nameValues,
                content: record({ size: integer, mimeType: text }, { compression: integer, text, encoding: text }),
                redirectURL: text,
                headersSize: sizeOrMinusOne,
                bodySize: sizeOrMinusOne,
              }),
              cache: record({}, { beforeRequest: { type: ["object", "null"] }, afterRequest: { type: ["object", "null"] } }),
              timings: record({ send: timing, wait: timing, receive: timing }, { blocked: timing, dns: timing, connect: timing, ssl: timing }),
            },
            { pageref: text, serverIPAddress: text, connection: text },
          ),
        },
      },
      { browser: record({ name: text, version: text }), pages: { type: "array" } },
    ),
  }),
};
