import { describe, expect, it } from "vitest";
import { z } from "zod";
import { asSentence, fieldLabel, issueSentence, notFoundMessage } from "../src/messages.js";

const firstIssue = (schema: z.ZodType, input: unknown) => schema.safeParse(input).error!.issues[0]!;

describe("error messages as sentences", () => {
  it("capitalises and ends with a full stop, once", () => {
    expect(asSentence("give the key a name")).toBe("Give the key a name.");
    expect(asSentence("Done already.")).toBe("Done already.");
    expect(asSentence("really?")).toBe("Really?");
  });

  it("names fields in words", () => {
    expect(fieldLabel(["destination_url"])).toBe("destination URL");
    expect(fieldLabel(["retry", "maxDelayMs"])).toBe("max delay ms");
    expect(fieldLabel([])).toBe("");
  });

  it("says a missing field is required", () => {
    expect(issueSentence(firstIssue(z.object({ name: z.string() }), {}))).toBe("Name is required.");
  });

  it("keeps a message that names its field, and puts the field before one that does not", () => {
    expect(issueSentence(firstIssue(z.object({ password: z.string().min(8, "password must be at least 8 characters") }), { password: "x" }))).toBe(
      "Password must be at least 8 characters.",
    );
    expect(issueSentence(firstIssue(z.object({ email: z.string().email("must be a valid email address") }), { email: "x" }))).toBe(
      "Email must be a valid email address.",
    );
    expect(issueSentence(firstIssue(z.object({ limit: z.number() }), { limit: "ten" }))).toBe("Limit: invalid input: expected number, received string.");
  });

  it("tells where to look for a missing record", () => {
    expect(notFoundMessage("event", "e1")).toBe("There is no event with the id e1. It may have been deleted already.");
    expect(notFoundMessage("endpoint", "p1")).toMatch(/^There is no endpoint with the id p1\. .+\.$/);
  });
});
