import { validateHeaderName, validateHeaderValue } from "node:http";
import { describe, expect, it } from "vitest";
import { answerHeaderProblem, contentTypeProblem, customResponseSchema, INERT_CONTENT_TYPE, issueSentence, renderCustomResponse } from "../src/index.js";

const EVENT_ID = "01930000-0000-7000-8000-0000000000aa";

/** The first problem the save finds, as the API words it (undefined: saved). */
function saveProblem(response: Record<string, unknown>): string | undefined {
  const parsed = customResponseSchema.safeParse(response);
  return parsed.success ? undefined : issueSentence(parsed.error.issues[0]!);
}

/** What node:http says of a header: the oracle for what writeHead accepts. */
function nodeWrites(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

describe("custom response content types", () => {
  it.each([
    "text/html",
    "TEXT/HTML; charset=utf-8",
    "application/xhtml+xml",
    "image/svg+xml",
    "text/xml",
    "application/xml",
    "application/atom+xml",
    "application/rss+xml",
    "text/xsl",
    "application/xslt+xml",
    "text/javascript",
    "application/javascript",
    "application/x-javascript",
    "application/ecmascript",
    "text/ecmascript",
    "multipart/x-mixed-replace; boundary=x",
    "application/pdf",
  ])("refuses %s at save", (type) => {
    expect(contentTypeProblem(type)).toMatch(/is refused because browsers run or render it/);
    expect(saveProblem({ status: 200, headers: { "Content-Type": type } })).toMatch(/^Headers: the Content-Type .* is refused because/);
  });

  it.each(["text/plain, text/html", "text/plain;,text/html", "", "html", "text/"])("refuses %j, which is not one media type", (type) => {
    expect(contentTypeProblem(type)).toMatch(/must be one media type/);
  });

  it.each(["application/json", "application/json; charset=utf-8", "text/plain", "application/x-www-form-urlencoded", "text/csv", "application/problem+json", "application/octet-stream", "image/png"])(
    "keeps %s",
    (type) => {
      expect(contentTypeProblem(type)).toBeUndefined();
      expect(saveProblem({ status: 200, headers: { "content-type": type } })).toBeUndefined();
    },
  );
});

describe("custom response headers that act on the origin", () => {
  it.each([
    ["Set-Cookie", "rehook_session=attacker; Path=/"],
    ["set-cookie2", "a=1"],
    ["Clear-Site-Data", '"*"'],
    ["Service-Worker-Allowed", "/"],
    ["Link", "</sw.js>; rel=serviceworker"],
    ["Refresh", "0; url=https://evil.example"],
    ["Content-Security-Policy", "default-src *"],
    ["Content-Security-Policy-Report-Only", "default-src 'none'"],
    ["X-Content-Type-Options", "sniff"],
    ["Strict-Transport-Security", "max-age=0"],
    ["NEL", '{"report_to":"x","max_age":86400}'],
    ["Report-To", '{"group":"x"}'],
    ["WWW-Authenticate", 'Basic realm="Rehook"'],
    ["Content-Disposition", 'attachment; filename="update.exe"'],
  ])("refuses %s at save with 'refused' and the header named", (name, value) => {
    expect(saveProblem({ status: 200, headers: { [name]: value } })).toMatch(new RegExp(`^Headers: the response header ${name} is refused because `));
  });

  it.each(["https://evil.example/", "//evil.example/api/webhook/x", "/\\evil.example", "/login", "/api/webhook/../../login", "/api/webhook/x/%2e%2e/%2E%2E/%2e%2e/trpc", "api/webhook/x", "javascript:alert(1)"])(
    "refuses Location %s (off the capture URLs: an open redirect)",
    (location) => {
      expect(answerHeaderProblem("Location", location)).toMatch(/Location is refused because it may only be a path under \/api\/webhook\//);
      expect(saveProblem({ status: 302, headers: { Location: location } })).toMatch(/^Headers: the response header Location is refused/);
    },
  );

  it("keeps a Location to another capture URL here, the event id filled in", () => {
    expect(saveProblem({ status: 307, headers: { Location: "/api/webhook/other-k3x9q2ma/retry" } })).toBeUndefined();
    expect(saveProblem({ status: 201, headers: { location: "/api/webhook/orders-k3x9q2ma/{{event_id}}" } })).toBeUndefined();
  });
});

describe("custom response header values and bodies", () => {
  it.each([
    ["an emoji", "ok 🎉", "U+1F389"],
    ["U+2028", "a\u2028b", "U+2028"],
    ["Latin-1 (node would send a lone 0xE9 byte)", "café", "U+00E9"],
    ["a lone surrogate", "x\uD800", "U+D800"],
  ])("refuses %s in a header value, naming the header and the character", (_case, value, character) => {
    expect(saveProblem({ status: 200, headers: { "X-Note": value } })).toBe(
      `Headers: the value of the response header X-Note contains ${character}: header values may hold printable ASCII, spaces and tabs only.`,
    );
  });

  it("refuses NUL in a header value as a control character", () => {
    expect(saveProblem({ status: 200, headers: { "X-Note": "a\u0000b" } })).toMatch(/X-Note contains a line break or control character/);
  });

  it.each([
    ["NUL", "a\u0000b"],
    ["a lone high surrogate", "a\uD83Db"],
    ["a lone low surrogate", "a\uDE00b"],
  ])("refuses %s in the body, naming the body", (_case, body) => {
    expect(saveProblem({ status: 200, body })).toBe("Body must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF).");
  });

  it("keeps a body with well-formed emoji", () => {
    expect(saveProblem({ status: 200, body: "ok 🎉 {{event_id}}" })).toBeUndefined();
  });

  it("saves only header values node:http can write", () => {
    const samples = ["plain", "tab\there", " spaced ", "~!@#$%^&*()", "é", "ÿ", "Ā", "\u2028", "😀", "\uD800", "\u0000", "\u007f", "\r\n", "\u0085", "a\u00a0b"];
    for (const value of samples) {
      if (saveProblem({ status: 200, headers: { "X-Sample": value } }) === undefined) expect(nodeWrites("X-Sample", value), JSON.stringify(value)).toBe(true);
    }
    for (const name of ["X Sample", "X-Säm", "X:Y", "X\u0000"]) {
      expect(saveProblem({ status: 200, headers: { [name]: "v" } }), JSON.stringify(name)).toBeDefined();
      expect(nodeWrites(name, "v")).toBe(false);
    }
  });
});

describe("serving a custom response saved before these rules (or around them)", () => {
  it("serves it inert: refused headers dropped, an active type served as text, values node refuses dropped", () => {
    const answer = renderCustomResponse(
      {
        status: 200,
        headers: {
          "Content-Type": "text/html; charset=utf-8",
          "Set-Cookie": "rehook_session=attacker",
          "Service-Worker-Allowed": "/",
          "Content-Security-Policy": "script-src *",
          "X-Content-Type-Options": "sniff",
          Location: "https://evil.example/",
          "X-Emoji": "🎉",
          "Content-Length": "1",
          "X-Kept": "id {{event_id}}",
        },
        body: "<script>fetch('/trpc/apiKeys.create')</script>",
        delayMs: 0,
      },
      EVENT_ID,
    );
    expect(answer.headers).toEqual({ "Content-Type": INERT_CONTENT_TYPE, "X-Kept": `id ${EVENT_ID}` });
    for (const [name, value] of Object.entries(answer.headers)) expect(nodeWrites(name, value)).toBe(true);
  });

  it("keeps a Latin-1 value node can write (saved before values had to be ASCII)", () => {
    expect(renderCustomResponse({ status: 200, headers: { "X-Name": "café" }, body: "", delayMs: 0 }, EVENT_ID).headers).toEqual({ "X-Name": "café" });
  });
});
