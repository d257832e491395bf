import { describe, expect, it } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { PendingRecords } from "../src/listen/pending-records.js";

describe("rehook listen's pending records", () => {
  it("sends a record the server refused again by itself, in order, without waiting for another event", async () => {
    const sent: string[] = [];
    let serverUp = false;
    const records = new PendingRecords<string>(async (item) => {
      if (!serverUp) return false;
      sent.push(item);
      return true;
    }, new AbortController().signal);
    await records.add("first");
    await records.add("second");
    expect(sent).toEqual([]);
    expect(records.size).toBe(2);
    serverUp = true;
    await waitFor(() => records.size === 0, "the retry to send both");
    expect(sent).toEqual(["first", "second"]);
  });

  it("keeps at most its bound, dropping the oldest, and stops retrying once aborted", async () => {
    const abort = new AbortController();
    let tries = 0;
    const records = new PendingRecords<number>(
      async () => {
        tries += 1;
        return false;
      },
      abort.signal,
      3,
    );
    for (let i = 0; i < 5; i += 1) await records.add(i);
    expect(records.size).toBe(3);
    abort.abort();
    const triesAtAbort = tries;
    await records.flush();
    expect(tries).toBe(triesAtAbort);
  });
});
