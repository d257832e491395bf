import { createHmac } from "node:crypto";

type MacInput = string | Uint8Array;

/** HMAC of the parts in order: strings as UTF-8, bodies as their bytes (never re-serialised). */
export function hmac(algorithm: "sha256" | "sha1", key: Uint8Array, ...parts: MacInput[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}
