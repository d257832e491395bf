import { connect, type Socket } from "node:net";
import type { RawResponse } from "./raw-http.js";

export interface UploadOptions {
  /** Body bytes to send after the head. */
  bodyBytes: number;
  /** Send the body as chunked transfer coding (the head must say so). */
  chunked?: boolean;
  /**
   * Wait up to this long for the answer's head before sending any body byte (an answer that
   * needs no body), then send the body either way (see answeredBeforeBody).
   */
  answerFirstWithinMs?: number;
  /** Handed the socket once connected (to hang up early). */
  onSocket?: (socket: Socket) => void;
}

export interface UploadResult extends RawResponse {
  /** Body bytes the client managed to hand to its socket. */
  sent: number;
  /** The answer's head arrived before any body byte was sent. */
  answeredBeforeBody: boolean;
}

const PIECE_BYTES = 64 * 1024;

function parse(received: Buffer[]): RawResponse {
  const text = Buffer.concat(received).toString("latin1");
  const split = text.indexOf("\r\n\r\n");
  if (split === -1) throw new Error(`no HTTP response: ${JSON.stringify(text)}`);
  const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(":");
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  return { status: Number(statusLine!.split(" ")[1]), headers, body: text.slice(split + 4) };
}

/**
 * A careful sender of a large body over a fresh TCP connection: it writes as fast as the
 * server reads (honouring backpressure) and then reads the answer. Unlike rawRequest it fails
 * on a connection reset or a broken pipe: the server must let it finish and read the answer.
 */
export function uploadLargeBody(url: string, head: string, options: UploadOptions): Promise<UploadResult> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    options.onSocket?.(socket);
    const received: Buffer[] = [];
    let sent = 0;
    let headArrived = false;
    let answeredBeforeBody = false;
    let answered: () => void = () => {};
    const answerHead = new Promise<void>((resolveHead) => (answered = resolveHead));
    socket.on("data", (chunk) => {
      received.push(chunk);
      if (!headArrived && Buffer.concat(received).includes("\r\n\r\n")) {
        headArrived = true;
        answered();
      }
    });
    socket.on("error", (error: NodeJS.ErrnoException) => reject(new Error(`the connection failed after ${sent} body bytes: ${error.code ?? error.message}`)));
    socket.on("close", (hadError) => {
      if (hadError) return;
      try {
        resolve({ ...parse(received), sent, answeredBeforeBody });
      } catch (error) {
        reject(error);
      }
    });
    socket.on("connect", async () => {
      await write(socket, Buffer.from(head, "latin1"));
      if (options.answerFirstWithinMs !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([answerHead, new Promise<void>((resolveLate) => (timer = setTimeout(resolveLate, options.answerFirstWithinMs)))]);
        clearTimeout(timer);
        answeredBeforeBody = headArrived;
      }
      const piece = Buffer.alloc(PIECE_BYTES, 0x61);
      while (sent < options.bodyBytes && !socket.destroyed) {
        const size = Math.min(PIECE_BYTES, options.bodyBytes - sent);
        const data = piece.subarray(0, size);
        await write(socket, options.chunked ? Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), data, Buffer.from("\r\n")]) : data);
        sent += size;
      }
      if (options.chunked && !socket.destroyed) await write(socket, Buffer.from("0\r\n\r\n"));
    });
  });
}

function write(socket: Socket, data: Buffer): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    if (socket.write(data)) return resolve();
    const done = () => {
      socket.off("drain", done);
      socket.off("close", done);
      resolve();
    };
    socket.once("drain", done);
    socket.once("close", done);
  });
}

export interface StalledUpload {
  socket: Socket;
  /** The answer, once the server sends one and closes (rejects on a reset). */
  answer: Promise<RawResponse>;
  /** Whether the server has sent an answer's head yet. */
  answered(): boolean;
}

/** Sends a request head and the first body bytes, then stalls: the body never finishes. */
export function stallUpload(url: string, head: string, firstBytes: Buffer): Promise<StalledUpload> {
  const { hostname, port } = new URL(url);
  return new Promise((resolveStalled, rejectStalled) => {
    const socket = connect(Number(port), hostname);
    const received: Buffer[] = [];
    let headArrived = false;
    const answered = () => headArrived;
    const answer = new Promise<RawResponse>((resolve, reject) => {
      socket.on("data", (chunk) => {
        received.push(chunk);
        if (!headArrived && Buffer.concat(received).includes("\r\n\r\n")) headArrived = true;
      });
      socket.on("error", (error: NodeJS.ErrnoException) => reject(new Error(`the connection failed: ${error.code ?? error.message}`)));
      socket.on("close", (hadError) => {
        if (hadError) return;
        try {
          resolve(parse(received));
        } catch (error) {
          reject(error);
        }
      });
    });
    // A test that drops the socket on purpose does not read the answer.
    answer.catch(() => undefined);
    socket.once("error", rejectStalled);
    socket.on("connect", () => {
      socket.write(head, "latin1");
      socket.write(firstBytes, () => resolveStalled({ socket, answer, answered }));
    });
  });
}
