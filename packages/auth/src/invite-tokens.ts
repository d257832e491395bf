import { createHash, randomInt } from "node:crypto";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const RANDOM_LENGTH = 32; // about 190 bits
const TOKEN_SHAPE = /^[0-9A-Za-z]{32}$/;

/** SHA-256 of an invite token: what is stored and looked up. */
export function inviteTokenDigest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

/** A new invite token and its digest; the token goes in the link, shown once. */
export function issueInviteToken(): { token: string; digest: Buffer } {
  let token = "";
  for (let i = 0; i < RANDOM_LENGTH; i += 1) token += BASE62[randomInt(BASE62.length)];
  return { token, digest: inviteTokenDigest(token) };
}

/** Whether a string has the shape of an invite token at all (anything else is refused unread). */
export function isWellFormedInviteToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}
