#!/usr/bin/env node
// The `rehook` command's entry. CommonJS on purpose: it runs before anything touches libuv's
// thread pool (ES module loading reads files through it), so the pool size set here counts.
// Password hashes, the DNS lookups of outbound connections and file reads share that pool;
// it is sized so that neither hashing nor lookups can fill it:
//   hashes (PASSWORD_HASH_CONCURRENCY, default half the cores, at most 4 — as in @rehook/auth)
//   + 5 threads that resolve names (up to 4 delivery workers and the main thread) × 4 lookups each
//   + 4 for file reads.
const { availableParallelism } = require("node:os");

if (!process.env.UV_THREADPOOL_SIZE) {
  const hashes = Number(process.env.PASSWORD_HASH_CONCURRENCY) || Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
  process.env.UV_THREADPOOL_SIZE = String(Math.min(1024, hashes + 5 * 4 + 4));
}
import("../dist/main.js");
