// The baseline: a bare node:http server that reads the whole body and answers 200. As a
// destination it can also stand for a broken one: `--status 500` answers that status,
// `--hang` reads the request and never answers.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";

const { values } = parseArgs({ options: { status: { type: "string", default: "200" }, hang: { type: "boolean", default: false } } });
const status = Number(values.status);

const server = createServer((req, res) => {
  req.on("data", () => undefined);
  req.on("end", () => {
    if (values.hang) return;
    res.writeHead(status, { "content-type": "application/json", "content-length": "2" });
    res.end("{}");
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
