import { describe, expect, it } from "vitest";
import {
  attemptDestinationLabel,
  attemptDestinationText,
  DELIVERY_STATE_LABELS,
  deliveryState,
  replayDestination,
  soleDelivery,
  summariseDeliveries,
  type DeliveryFacts,
} from "../src/index.js";

describe("deliveryState", () => {
  it.each([
    ["pending", false, "pending"],
    ["pending", true, "paused"],
    // A finished delivery stays as it finished, whatever its destination does now.
    ["delivered", true, "delivered"],
    ["failed", true, "failed"],
    ["failed", false, "failed"],
    ["filtered", true, "filtered"],
  ] as const)("%s with the destination paused %s reads %s", (status, destinationPaused, state) => {
    expect(deliveryState({ status, destinationPaused })).toBe(state);
  });

  it("has a word for each state", () => {
    expect(DELIVERY_STATE_LABELS).toEqual({ pending: "Pending", paused: "Paused", delivered: "Delivered", failed: "Failed", filtered: "Filtered out" });
  });
});

describe("summariseDeliveries", () => {
  const soon = new Date("2026-12-09T10:00:30Z");
  const later = new Date("2026-12-09T10:05:00Z");
  const facts = (name: string, state: DeliveryFacts["state"], nextAttemptAt: Date | null = null): DeliveryFacts => ({ destinationId: name, name, state, nextAttemptAt });

  it("is held by a pause when the only waiting delivery is paused, and names its destination", () => {
    const summary = summariseDeliveries([facts("Main", "delivered"), facts("Billing", "paused", soon)]);
    expect(summary).toMatchObject({ routed: 2, delivered: 1, trying: false, nextAttemptAt: null, heldByPause: true });
    expect(summary.paused.map((delivery) => delivery.name)).toEqual(["Billing"]);
  });

  it("is not held while another delivery still tries; the earliest due retry is the next attempt", () => {
    const summary = summariseDeliveries([facts("A", "paused"), facts("B", "pending", later), facts("C", "pending", soon), facts("D", "filtered")]);
    expect(summary).toMatchObject({ routed: 3, delivered: 0, trying: true, nextAttemptAt: soon, heldByPause: false });
    expect(summary.paused).toHaveLength(1);
  });

  it("has no scheduled time when a trying delivery is due now", () => {
    expect(summariseDeliveries([facts("A", "pending", later), facts("B", "pending")]).nextAttemptAt).toBeNull();
    expect(summariseDeliveries([]).heldByPause).toBe(false);
  });
});

describe("soleDelivery", () => {
  it("is the one delivery an event was routed to, filtered ones aside; none with several or none", () => {
    expect(soleDelivery([{ status: "paused" as const }, { status: "filtered" as const }])).toEqual({ status: "paused" });
    expect(soleDelivery([{ status: "delivered" as const }, { status: "failed" as const }])).toBeNull();
    expect(soleDelivery([{ status: "filtered" as const }])).toBeNull();
  });
});

describe("where an attempt went", () => {
  const replay = { destinationUrl: "https://x.example/in", destinationId: null, destinationName: null, localVia: null };

  it("names a destination, or says it was removed", () => {
    expect(attemptDestinationText({ kind: "destination", destinationId: "d", name: "Billing", url: "https://billing.example/in" })).toBe("Billing · https://billing.example/in");
    expect(attemptDestinationLabel({ kind: "destination", destinationId: null, name: null, url: null })).toBe("Removed destination");
    expect(attemptDestinationText({ kind: "destination", destinationId: "d", name: null, url: null })).toBe("Removed destination");
  });

  it("names a replay's destination whatever its environment, the others by where they went", () => {
    expect(replayDestination({ ...replay, environment: "original", destinationId: "d", destinationName: "CI" })).toEqual({
      kind: "destination",
      destinationId: "d",
      name: "CI",
      url: "https://x.example/in",
    });
    expect(attemptDestinationLabel(replayDestination({ ...replay, environment: "original" }))).toBe("Removed destination");
    expect(attemptDestinationLabel(replayDestination({ ...replay, environment: "staging" }))).toBe("staging");
    expect(attemptDestinationLabel(replayDestination({ ...replay, environment: "custom" }))).toBe("custom URL");
    expect(attemptDestinationLabel(replayDestination({ ...replay, environment: "local", localVia: "listen" }))).toBe("local via listen");
    expect(attemptDestinationLabel(replayDestination({ ...replay, environment: "local", localVia: "browser" }))).toBe("browser local");
    // Local replays recorded before the way was kept.
    expect(attemptDestinationText(replayDestination({ ...replay, environment: "local" }))).toBe("local · https://x.example/in");
  });
});
