import type { MessagePort } from "node:worker_threads";
import type { HeaderList } from "@rehook/core";

/** One outbound request, as handed to a worker thread (structured-clone friendly). */
export interface DeliveryTask {
  url: string;
  method: string;
  headers: HeaderList;
  body: Uint8Array;
  /** Total time allowed for connect, send and the whole answer. */
  timeoutMs: number;
  /** Most response-body bytes kept; the rest is read and dropped. */
  maxResponseBytes: number;
  allowPrivate: boolean;
  /** Epoch ms after which the request must not start (its claim would lapse mid-flight). */
  startBy?: number;
  /** Why it must not be sent at all: the worker records a failure with this reason, sending nothing. */
  refused?: string;
}

export interface DeliveryResult {
  /** A 2xx answer. Anything else (3xx included, never followed) is a failure. */
  ok: boolean;
  status: number | null;
  headers: HeaderList | null;
  body: Uint8Array | null;
  truncated: boolean;
  /** When the attempt started (epoch ms, this machine's clock). */
  startedAt: number;
  latencyMs: number;
  /** Why it failed, without the content of anything not fetched nor the address a name resolved to: "blocked: loopback address". */
  error: string | null;
  timedOut: boolean;
}

/** Task index and its result; null when the request was not sent (startBy had passed). */
export type ResultMessage = Array<[number, DeliveryResult | null]>;

/** What a worker receives: the tasks and the port their results come back on. */
export interface DeliveryBatch {
  tasks: DeliveryTask[];
  results: MessagePort;
}
