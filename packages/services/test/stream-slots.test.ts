import { describe, expect } from "vitest";
import {
  createEndpoint,
  limitStreams,
  MAX_STREAMS_PER_INSTANCE,
  MAX_STREAMS_PER_USER,
  openEndpointEventStream,
  openLiveEvents,
  StreamSlots,
  streamSlotsOf,
} from "@rehook/services";
import { expectRefused, refusal, test } from "./support.js";

// Open event streams are counted per instance, per user and in all: the API's endpoint stream
// and the dashboard's live feed take slots from the same count (the instance's event bus
// identifies it), a refusal says which limit was reached, and a stream gives its slot back
// when its connection ends.

const perUser = (limit: number) =>
  `You have too many open event streams (at most ${limit} per user). Close one, a dashboard tab or a rehook listen, and try again.`;
const perInstance = (limit: number) => `This server has ${limit} open event streams, its limit. Try again in a minute.`;

describe("StreamSlots", () => {
  test("counts per user and in all, refusing past either limit", async () => {
    const slots = new StreamSlots({ perUser: 2, perInstance: 3 });
    const a1 = slots.take("a");
    slots.take("a");
    expect((await refusal(Promise.resolve().then(() => slots.take("a")))).message).toBe(perUser(2));
    slots.take("b");
    const refused = await refusal(Promise.resolve().then(() => slots.take("c")));
    expect(refused).toMatchObject({ code: "rate_limited", message: perInstance(3) });
    expect([slots.open("a"), slots.open("b"), slots.open("c"), slots.open()]).toEqual([2, 1, 0, 3]);
    a1();
    expect([slots.open("a"), slots.open()]).toEqual([1, 2]);
    slots.take("c");
    expect(slots.open("c")).toBe(1);
  });

  test("a release counts once, however often it is called", () => {
    const slots = new StreamSlots({ perUser: 5, perInstance: 5 });
    const release = slots.take("a");
    slots.take("a");
    release();
    release();
    expect([slots.open("a"), slots.open()]).toEqual([1, 1]);
  });

  test("defaults to MAX_STREAMS_PER_USER and MAX_STREAMS_PER_INSTANCE", async () => {
    const slots = new StreamSlots();
    for (let i = 0; i < MAX_STREAMS_PER_USER; i += 1) slots.take("a");
    expect((await refusal(Promise.resolve().then(() => slots.take("a")))).message).toBe(perUser(MAX_STREAMS_PER_USER));
    for (let i = 0; i < MAX_STREAMS_PER_INSTANCE - MAX_STREAMS_PER_USER; i += 1) slots.take(`user-${i}`);
    expect((await refusal(Promise.resolve().then(() => slots.take("someone else")))).message).toBe(perInstance(MAX_STREAMS_PER_INSTANCE));
  });
});

describe("the instance's slots", () => {
  test("are one count per event bus, replaced by limitStreams", ({ services }) => {
    const slots = streamSlotsOf(services.bus);
    expect(streamSlotsOf(services.bus)).toBe(slots);
    expect(streamSlotsOf({})).not.toBe(slots);
    const limited = limitStreams(services.bus, { perUser: MAX_STREAMS_PER_USER, perInstance: MAX_STREAMS_PER_INSTANCE });
    expect(streamSlotsOf(services.bus)).toBe(limited);
    expect(limited).not.toBe(slots);
  });

  test("are shared by the endpoint stream and the live feed, and given back when a stream's signal aborts", async ({ services, user, other }) => {
    const slots = limitStreams(services.bus, { perUser: 2, perInstance: 3 });
    const streams: AbortController[] = [];
    const opened = () => {
      const controller = new AbortController();
      streams.push(controller);
      return controller.signal;
    };
    try {
      const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "streamed" });
      await openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, signal: opened() });
      await openLiveEvents(services, { teamId: user.teamId, userId: user.id, filter: {}, signal: opened() });
      expect(slots.open(user.id)).toBe(2);
      await expectRefused(openLiveEvents(services, { teamId: user.teamId, userId: user.id, filter: {}, signal: new AbortController().signal }), "rate_limited", perUser(2));
      await expectRefused(openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: endpoint.id, signal: new AbortController().signal }), "rate_limited", perUser(2));

      await openLiveEvents(services, { teamId: other.teamId, userId: other.id, filter: {}, signal: opened() });
      await expectRefused(openLiveEvents(services, { teamId: other.teamId, userId: "someone-else", filter: {}, signal: new AbortController().signal }), "rate_limited", perInstance(3));

      // The connection ends: its slot is back, though the stream was never read.
      streams[0]!.abort();
      expect([slots.open(user.id), slots.open()]).toEqual([1, 2]);
      await openLiveEvents(services, { teamId: user.teamId, userId: user.id, filter: {}, signal: opened() });
      expect(slots.open(user.id)).toBe(2);
    } finally {
      for (const controller of streams) controller.abort();
      limitStreams(services.bus, { perUser: MAX_STREAMS_PER_USER, perInstance: MAX_STREAMS_PER_INSTANCE });
    }
    expect(slots.open()).toBe(0);
  });

  test("a stream refused before it starts (unknown endpoint, bad filter) takes no slot", async ({ services, user, other }) => {
    const slots = streamSlotsOf(services.bus);
    const theirs = await createEndpoint(services, { teamId: other.teamId, name: "theirs" });
    await expectRefused(openEndpointEventStream(services, { teamId: user.teamId, userId: user.id, endpointId: theirs.id, signal: new AbortController().signal }), "not_found");
    await expectRefused(openLiveEvents(services, { teamId: user.teamId, userId: user.id, filter: { status: "lost" as never }, signal: new AbortController().signal }), "validation_failed");
    expect(slots.open(user.id)).toBe(0);
  });
});
