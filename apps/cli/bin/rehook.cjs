#!/usr/bin/env node
// The `rehook` command's entry. CommonJS on purpose: it runs before anything touches libuv's
// thread pool (ES module loading reads files through it), so the pool size set here still
// counts. Password hashing, DNS lookups for outbound connections and file reads share that
// pool; 16 threads leave room for lookups while hashes run (the hashing limit is in @rehook/auth).
process.env.UV_THREADPOOL_SIZE ??= "16";
import("../dist/main.js");
