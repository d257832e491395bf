import { describe, expect, it } from "vitest";
import { auditableUrl, auditChanges, auditFields, HIDDEN_QUERY_VALUE, withoutSecret } from "../src/index.js";

describe("URLs in the audit log", () => {
  it("keep scheme, host, port and path, and the query's names with their values hidden", () => {
    expect(auditableUrl("https://api.example.com:8443/hooks/in?token=s3cr3t&env=prod&token=again#frag")).toBe(
      `https://api.example.com:8443/hooks/in?token=${HIDDEN_QUERY_VALUE}&env=${HIDDEN_QUERY_VALUE}`,
    );
    expect(auditableUrl("https://user:pass@example.com/a")).toBe("https://example.com/a");
    expect(auditableUrl("http://127.0.0.1:3000/")).toBe("http://127.0.0.1:3000/");
  });

  it("keep null as null, and nothing of a value that is no URL", () => {
    expect(auditableUrl(null)).toBeNull();
    expect(auditableUrl(undefined)).toBeNull();
    expect(auditableUrl("not a url with a s3cr3t")).toBe("(not a URL)");
  });

  it("apply to the fields named as URLs when comparing or listing a view's fields", () => {
    const before = { name: "CRM", url: "https://crm.example.com/in?key=old-key" };
    const after = { name: "CRM", url: "https://crm.example.com/in?key=new-key" };
    // The value changed, though both read the same once hidden: the change is still recorded.
    expect(auditChanges(before, after, { fields: ["name", "url"], urls: ["url"] })).toEqual({
      url: { before: `https://crm.example.com/in?key=${HIDDEN_QUERY_VALUE}`, after: `https://crm.example.com/in?key=${HIDDEN_QUERY_VALUE}` },
    });
    expect(auditFields(after, { fields: ["name", "url"], urls: ["url"] })).toEqual({ name: "CRM", url: `https://crm.example.com/in?key=${HIDDEN_QUERY_VALUE}` });
  });
});

describe("a provider's error text in the log", () => {
  it("names the rule's target only as a placeholder, however the provider spelled it", () => {
    const text = "test failed: 550 5.1.1 <Ops+Alerts@Example.com>: recipient rejected; ops+alerts@example.com unknown";
    expect(withoutSecret(text, "ops+alerts@example.com", "[target]")).toBe("test failed: 550 5.1.1 <[target]>: recipient rejected; [target] unknown");
    expect(withoutSecret("the provider answered 404", "https://hooks.example.com/T/B/x", "[target]")).toBe("the provider answered 404");
  });
});
