import { describe, expect, it } from "vitest";
import { generateSlug, isValidSlug, slugifyName } from "../src/index.js";

describe("slugs", () => {
  it("lowercases the name and joins ASCII words with dashes", () => {
    expect(slugifyName("Stripe Prod!")).toBe("stripe-prod");
    expect(slugifyName("  GitHub -- Push  Events ")).toBe("github-push-events");
  });

  it("folds accents to ASCII", () => {
    expect(slugifyName("Café Zürich")).toBe("cafe-zurich");
  });

  it("ends with a dash and 8 random characters from [a-z0-9]", () => {
    const slug = generateSlug("Orders");
    expect(slug).toMatch(/^orders-[a-z0-9]{8}$/);
    expect(isValidSlug(slug)).toBe(true);
  });

  it("gives a name that slugifies to nothing a valid slug", () => {
    for (const name of ["", "!!!", "日本語", "🎉"]) {
      const slug = generateSlug(name);
      expect(slug).toMatch(/^endpoint-[a-z0-9]{8}$/);
      expect(isValidSlug(slug)).toBe(true);
    }
  });

  it("keeps long names to a bounded length without a trailing dash before the suffix", () => {
    const slug = generateSlug(`${"a".repeat(47)} b c d e f`);
    expect(slug.length).toBeLessThanOrEqual(48 + 9);
    expect(slug).not.toMatch(/--/);
    expect(isValidSlug(slug)).toBe(true);
  });

  it("draws each suffix character from the whole alphabet", () => {
    expect(generateSlug("x", () => 0)).toBe("x-aaaaaaaa");
    expect(generateSlug("x", (max) => max - 1)).toBe("x-99999999");
  });

  it("produces distinct slugs for the same name", () => {
    const slugs = new Set(Array.from({ length: 1000 }, () => generateSlug("same")));
    expect(slugs.size).toBe(1000);
  });
});
