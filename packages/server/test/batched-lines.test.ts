import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { batchedLines } from "../src/batched-lines.js";

describe("batchedLines", () => {
  it("writes the lines of one turn of the event loop in one write, in order", async () => {
    const writes: string[] = [];
    const stream = new PassThrough();
    stream.on("data", (chunk: Buffer) => writes.push(chunk.toString()));
    const sink = batchedLines(stream);
    sink.write("a\n");
    sink.write("b\n");
    expect(writes).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toEqual(["a\nb\n"]);
  });

  it("writes at once past its byte bound", () => {
    const written: string[] = [];
    const sink = batchedLines({ write: (text: string) => (written.push(text), true) } as unknown as NodeJS.WritableStream, 4);
    sink.write("ab\n");
    expect(written).toEqual([]);
    sink.write("cd\n");
    expect(written).toEqual(["ab\ncd\n"]);
  });
});
