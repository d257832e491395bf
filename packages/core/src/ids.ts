import { randomFillSync } from "node:crypto";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// Random bytes are drawn 4 KiB at a time: one syscall per 256 ids instead of one per id.
const RANDOM_POOL_SIZE = 4096;
const randomPool = new Uint8Array(RANDOM_POOL_SIZE);
let randomOffset = RANDOM_POOL_SIZE;

function randomBytes16(): Uint8Array {
  if (randomOffset + 16 > RANDOM_POOL_SIZE) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  const bytes = randomPool.slice(randomOffset, randomOffset + 16);
  randomOffset += 16;
  return bytes;
}

export type UuidV7Generator = (now?: number) => string;

/**
 * A UUIDv7 (RFC 9562) generator: 48-bit Unix milliseconds, then 74 random bits.
 * Within one millisecond the 12-bit rand_a field carries a counter, so ids
 * made by one generator sort in creation order (keyset pagination relies on it).
 * Each generator keeps its own monotonic state, so a test can start from a clean one.
 */
export function createUuidV7Generator(clock: () => number = Date.now): UuidV7Generator {
  let lastMillis = 0;
  let sequence = 0;
  return (now = clock()) => {
    const bytes = randomBytes16();
    let millis = now;
    if (millis <= lastMillis) {
      millis = lastMillis;
      sequence += 1;
      if (sequence > 0xfff) {
        // Counter exhausted: borrow the next millisecond rather than repeat an order.
        millis += 1;
        sequence = 0;
      }
    } else {
      sequence = (bytes[6]! & 0x07) << 8 | bytes[7]!; // random start, leaves room to count up
    }
    lastMillis = millis;

    bytes[0] = Math.floor(millis / 2 ** 40) & 0xff;
    bytes[1] = Math.floor(millis / 2 ** 32) & 0xff;
    bytes[2] = (millis >>> 24) & 0xff;
    bytes[3] = (millis >>> 16) & 0xff;
    bytes[4] = (millis >>> 8) & 0xff;
    bytes[5] = millis & 0xff;
    bytes[6] = 0x70 | ((sequence >>> 8) & 0x0f);
    bytes[7] = sequence & 0xff;
    bytes[8] = 0x80 | (bytes[8]! & 0x3f);

    const hex = Buffer.from(bytes).toString("hex");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  };
}

/** The process-wide generator: every id this process stores comes from it. */
export const uuidv7: UuidV7Generator = createUuidV7Generator();

export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}

/** The version nibble of a UUID string (7 for uuidv7()). */
export function uuidVersion(value: string): number {
  return Number.parseInt(value.charAt(14), 16);
}

/** The creation time embedded in a UUIDv7. */
export function uuidv7Timestamp(value: string): Date {
  const hex = value.replace(/-/g, "").slice(0, 12);
  return new Date(Number.parseInt(hex, 16));
}

/** The smallest UUIDv7 of a millisecond: ids >= it were made at or after that time. */
export function uuidv7Floor(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}
