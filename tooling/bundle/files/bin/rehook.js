#!/usr/bin/env node
// The release bundle's `rehook` command: `node bin/rehook.js start` from any directory.
// CommonJS (the bundle's package.json sets no "type"), so app/bin/rehook.cjs still runs before
// any ES module loads and its sizing of libuv's thread pool takes effect.
"use strict";

const [major, minor] = process.versions.node.split(".").map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`rehook: Node.js 20.19 or newer is required; this is ${process.version}\n`);
  process.exit(1);
}
require("../app/bin/rehook.cjs");
