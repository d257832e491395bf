// The baseline: a bare node:http server that reads the whole body and answers 200.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const server = createServer((req, res) => {
  req.on("data", () => undefined);
  req.on("end", () => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "2" });
    res.end("{}");
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
