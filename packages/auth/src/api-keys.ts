import { createHash, randomInt } from "node:crypto";

const PREFIX = "pk_live_";
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 40; // 40 base62 characters: about 238 bits
const KEY_SHAPE = /^pk_live_[0-9A-Za-z]{32,128}$/;

export interface IssuedApiKey {
  /** The whole key: shown once, never stored. */
  key: string;
  /** What lists show to tell keys apart: "pk_live_AbCd". */
  prefix: string;
  /** SHA-256 of the key: what is stored and looked up. */
  digest: Buffer;
}

export function apiKeyDigest(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}

export function issueApiKey(): IssuedApiKey {
  let random = "";
  for (let i = 0; i < RANDOM_LENGTH; i += 1) random += BASE62[randomInt(BASE62.length)];
  const key = PREFIX + random;
  return { key, prefix: key.slice(0, PREFIX.length + 4), digest: apiKeyDigest(key) };
}

/** Whether a bearer token has the shape of a key at all (anything else is refused unread). */
export function isWellFormedApiKey(token: string): boolean {
  return KEY_SHAPE.test(token);
}
