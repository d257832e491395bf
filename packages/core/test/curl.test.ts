import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { curlCommand } from "../src/index.js";

const url = "https://api.example.com/hooks?a=1&b=2";

/**
 * Runs a generated command in sh with curl replaced by a function that prints each of its
 * arguments NUL-terminated, a marker, then its stdin: what the real curl would have been
 * given, byte for byte.
 */
function capture(command: string): { args: string[]; stdin: Buffer } {
  const script = `curl() { for arg in "$@"; do printf '%s\\0' "$arg"; done; printf '\\001STDIN\\001'; cat; }\n${command}`;
  const out = execFileSync("sh", ["-c", script], { input: "", encoding: "buffer", maxBuffer: 1 << 26 });
  const marker = out.indexOf("\x01STDIN\x01");
  const args = out.subarray(0, marker).toString("utf8").split("\0").slice(0, -1);
  return { args, stdin: out.subarray(marker + "\x01STDIN\x01".length) };
}

describe("copy as curl", () => {
  it("builds method, quoted URL and one -H per header", () => {
    const command = curlCommand({
      method: "POST",
      url,
      headers: [
        ["Content-Type", "application/json"],
        ["X-Tag", "a"],
        ["X-Tag", "b"],
      ],
      body: Buffer.from('{"ok":true}'),
    });
    expect(command).toBe(
      [
        `curl -X POST '${url}'`,
        `  -H 'Content-Type: application/json'`,
        `  -H 'X-Tag: a'`,
        `  -H 'X-Tag: b'`,
        `  --data-binary '{"ok":true}'`,
      ].join(" \\\n"),
    );
  });

  it("adds no body flag for an empty body", () => {
    expect(curlCommand({ method: "GET", url, headers: [], body: new Uint8Array() })).toBe(`curl -X GET '${url}'`);
  });

  it("skips hop-by-hop and computed headers in any case", () => {
    const skipped = ["Host", "content-length", "CONNECTION", "Keep-Alive", "Transfer-Encoding", "TE", "Trailer", "Upgrade", "Expect", "Proxy-Connection", "Proxy-Authorization", "Proxy-Authenticate"];
    const command = curlCommand({
      method: "POST",
      url,
      headers: [...skipped.map((name): [string, string] => [name, "x"]), ["Authorization", "Bearer t"]],
      body: new Uint8Array(),
    });
    expect(command).toBe(`curl -X POST '${url}' \\\n  -H 'Authorization: Bearer t'`);
  });

  it("sends an empty header value as an empty header, not a removal", () => {
    expect(curlCommand({ method: "GET", url, headers: [["X-Empty", ""]], body: new Uint8Array() })).toContain(`-H 'X-Empty;'`);
  });

  it("escapes single quotes the POSIX way", () => {
    const command = curlCommand({ method: "POST", url: "https://x.example/it's", headers: [["X-Q", "it's"]], body: Buffer.from("don't") });
    expect(command).toContain(`'https://x.example/it'\\''s'`);
    expect(command).toContain(`-H 'X-Q: it'\\''s'`);
    expect(command).toContain(`--data-binary 'don'\\''t'`);
  });

  it("quotes an unusual method", () => {
    expect(curlCommand({ method: "M-SEARCH", url, headers: [], body: new Uint8Array() })).toMatch(/^curl -X M-SEARCH /);
    expect(curlCommand({ method: "GET;id", url, headers: [], body: new Uint8Array() })).toMatch(/^curl -X 'GET;id' /);
  });

  it("pipes a binary body through printf with octal escapes", () => {
    const command = curlCommand({ method: "PUT", url, headers: [], body: Uint8Array.from([0x41, 0x00, 0xff, 0x5c, 0x27, 0x31]) });
    expect(command).toBe(`printf '%b' 'A\\0000\\0377\\0134\\00471' | curl -X PUT '${url}' \\\n  --data-binary @-`);
  });

  it.each([
    ["NUL bytes", Uint8Array.from([0x7b, 0x00, 0x7d])],
    ["invalid UTF-8", Uint8Array.from([0x68, 0x69, 0xc3, 0x28])],
    ["a leading @, which curl would read as a file name", Buffer.from("@/etc/passwd")],
    ["carriage returns, which a terminal turns into newlines on paste", Buffer.from("--b\r\nContent-Disposition: form-data\r\n\r\nx\r\n--b--\r\n")],
    ["other control characters", Buffer.from("bell\x07 esc\x1b[0m del\x7f")],
  ])("uses the printf pipe for %s", (_, body) => {
    expect(curlCommand({ method: "POST", url, headers: [], body })).toMatch(/^printf '%b' '.*' \| curl .* --data-binary @-$/s);
  });

  describe("when run in sh", () => {
    it("hands curl exactly the original bytes for a binary body", () => {
      const body = Uint8Array.from({ length: 256 * 2 }, (_, i) => i % 256);
      const { args, stdin } = capture(curlCommand({ method: "POST", url, headers: [["Content-Type", "application/octet-stream"]], body }));
      expect(args).toEqual(["-X", "POST", url, "-H", "Content-Type: application/octet-stream", "--data-binary", "@-"]);
      expect(Buffer.compare(stdin, Buffer.from(body))).toBe(0);
    });

    it("keeps digits after an escape, backslashes, quotes and percent signs", () => {
      const body = Buffer.concat([Buffer.from([0xff]), Buffer.from("0123 \\n \\0101 %s %b ' \" $HOME `id` \\"), Buffer.from([0x00, 0x37])]);
      expect(Buffer.compare(capture(curlCommand({ method: "POST", url, headers: [], body })).stdin, body)).toBe(0);
    });

    it("passes text, headers and URL through as single arguments", () => {
      const text = `{"msg": "it's $HOME and \`id\` and \\n \\\\ !! %s",\n\t"emoji": "🎉"}`;
      const headers: Array<[string, string]> = [
        ["X-Quote", `a'b"c`],
        ["X-Shell", "$(id); `id` | & > <"],
        ["X-Dup", "1"],
        ["X-Dup", "2"],
      ];
      const { args, stdin } = capture(curlCommand({ method: "PATCH", url: `${url}&q='x'`, headers, body: Buffer.from(text) }));
      expect(args).toEqual([
        "-X",
        "PATCH",
        `${url}&q='x'`,
        "-H",
        `X-Quote: a'b"c`,
        "-H",
        "X-Shell: $(id); `id` | & > <",
        "-H",
        "X-Dup: 1",
        "-H",
        "X-Dup: 2",
        "--data-binary",
        text,
      ]);
      expect(stdin.length).toBe(0);
    });

    it("delivers a body starting with @ as data, not a file name", () => {
      const body = Buffer.from("@/etc/passwd\r\n");
      const { args, stdin } = capture(curlCommand({ method: "POST", url, headers: [], body }));
      expect(args.at(-1)).toBe("@-");
      expect(stdin.toString()).toBe("@/etc/passwd\r\n");
    });
  });
});
