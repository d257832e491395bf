import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import path from "node:path";
import { decodePathSegment } from "@rehook/http";

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

/**
 * Serves the dashboard's built client files. Fingerprinted files under /assets/ are cached
 * for a year; anything else for an hour. Answers false when there is no such file.
 */
export function createStaticHandler(root: string) {
  const base = path.resolve(root);
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const pathname = decodePathSegment((req.url ?? "/").split("?")[0]!);
    if (pathname === undefined) return false;
    const file = path.resolve(base, `.${pathname}`);
    if (!file.startsWith(base + path.sep)) return false; // no way out of the build folder
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) return false;
    res.writeHead(200, {
      "content-type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "content-length": info.size,
      "cache-control": pathname.startsWith("/assets/") ? "public, max-age=31536000, immutable" : "public, max-age=3600",
      "x-content-type-options": "nosniff",
    });
    if (req.method === "HEAD") res.end();
    else createReadStream(file).pipe(res);
    return true;
  };
}
