import { describe, expect, it } from "vitest";
import { checkChatHookUrl, DEFAULT_CHAT_HOOKS_BASE, NOTIFICATION_TRIGGERS } from "../src/index.js";

const base = DEFAULT_CHAT_HOOKS_BASE;
const hook = "https://hooks.slack.com/services/T000/B000/XXXX";

function reason(raw: string, against = base): string | undefined {
  const checked = checkChatHookUrl(raw, against);
  return checked.ok ? undefined : checked.reason;
}

describe("chat hook URLs", () => {
  it("has the defaults the settings form relies on", () => {
    expect(DEFAULT_CHAT_HOOKS_BASE).toBe("https://hooks.slack.com");
    expect(NOTIFICATION_TRIGGERS).toEqual(["failed", "delivered", "captured"]);
  });

  it("accepts a URL under the base, normalised", () => {
    expect(checkChatHookUrl(hook, base)).toEqual({ ok: true, url: hook });
    expect(checkChatHookUrl("HTTPS://Hooks.Slack.com:443/services/x?y=1", base)).toEqual({ ok: true, url: "https://hooks.slack.com/services/x?y=1" });
    expect(checkChatHookUrl(hook, `${base}/`)).toEqual({ ok: true, url: hook });
  });

  it.each([" ", "\t", "\n", "\u00a0"])("asks to remove whitespace (%j) around the URL", (space) => {
    expect(reason(`${space}${hook}`)).toBe("remove the spaces around the URL");
    expect(reason(`${hook}${space}`)).toBe("remove the spaces around the URL");
  });

  it.each([
    ['"', '"'],
    ["'", "'"],
    ["`", "`"],
    ["<", ">"],
    ["\u201c", "\u201d"],
    ["\u2018", "\u2019"],
  ])("asks to remove %s…%s around the URL", (open, close) => {
    expect(reason(`${open}${hook}${close}`)).toBe("remove the quotes around the URL");
    expect(reason(`${open}${hook}`)).toBe("remove the quotes around the URL");
    expect(reason(`${hook}${close}`)).toBe("remove the quotes around the URL");
  });

  it("refuses an empty URL", () => {
    expect(reason("")).toBe("the URL is empty");
    expect(reason("  ")).toBe("the URL is empty");
  });

  it("refuses what is not a URL, showing what one looks like", () => {
    expect(reason("hooks.slack.com/services/x")).toBe("not a valid URL: it should look like https://hooks.slack.com/…");
    expect(reason("not a url")).toMatch(/^not a valid URL/);
  });

  it("refuses credentials", () => {
    expect(reason("https://user:pw@hooks.slack.com/services/x")).toBe("remove the user:password@ part from the URL");
    expect(reason("https://hooks.slack.com@evil.example/services/x")).toBe("remove the user:password@ part from the URL");
  });

  it.each([
    ["https://evil.example/services/x", "https://evil.example"],
    ["http://hooks.slack.com/services/x", "http://hooks.slack.com"],
    ["https://hooks.slack.com:8443/services/x", "https://hooks.slack.com:8443"],
    ["https://hooks.slack.com.evil.example/services/x", "https://hooks.slack.com.evil.example"],
    ["https://evilhooks.slack.com/services/x", "https://evilhooks.slack.com"],
    ["javascript:alert(1)", "javascript:alert(1)"],
  ])("refuses %s, saying what it must start with", (raw, got) => {
    expect(reason(raw)).toBe(`the URL must start with https://hooks.slack.com (got ${got})`);
  });

  it("requires whole path segments of a base with a path", () => {
    const withPath = "https://chat.example.com/hooks";
    expect(checkChatHookUrl("https://chat.example.com/hooks/abc", withPath)).toEqual({ ok: true, url: "https://chat.example.com/hooks/abc" });
    expect(checkChatHookUrl("https://chat.example.com/hooks", `${withPath}/`).ok).toBe(true);
    expect(reason("https://chat.example.com/hooks-evil/abc", withPath)).toBe(
      "the URL must start with https://chat.example.com/hooks (got https://chat.example.com/hooks-evil/abc)",
    );
    expect(reason("https://chat.example.com/other", withPath)).toMatch(/must start with https:\/\/chat\.example\.com\/hooks/);
  });

  it("says so when the configured base itself is unusable", () => {
    expect(reason(hook, "nonsense")).toMatch(/CHAT_HOOKS_BASE/);
    expect(reason("file:///etc/passwd", "file:///")).toMatch(/CHAT_HOOKS_BASE/);
  });
});
