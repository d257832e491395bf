import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { availableParallelism } from "node:os";
import { ConcurrencyLimit } from "@rehook/core";

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;
// OWASP's scrypt baseline (N=2^17, r=8, p=1) costs 128 MiB per hash.
const DEFAULT_COST: ScryptOptions = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };

/**
 * Hashes at once: half the cores (at most 4), so a flood of sign-ups or logins leaves CPU for
 * forwarding. apps/cli/bin/rehook.cjs sizes the thread pool with the same rule.
 */
export const DEFAULT_HASH_CONCURRENCY = Math.max(1, Math.min(4, Math.floor(availableParallelism() / 2)));
/** Hashes waiting for a slot; past this, a login or sign-up is told to retry (429) instead of queueing without bound. */
export const DEFAULT_HASH_QUEUE = 64;

/**
 * scrypt runs on libuv's thread pool, which the whole process shares with DNS lookups (every
 * outbound connection's getaddrinfo) and file reads. Unbounded hashing would fill the pool and
 * make another tenant's forwards wait for a name lookup; one process-wide limit keeps most of
 * the pool free (UV_THREADPOOL_SIZE is sized for both in apps/cli/bin/rehook.cjs).
 */
const hashing = new ConcurrencyLimit(DEFAULT_HASH_CONCURRENCY, DEFAULT_HASH_QUEUE);

export function configurePasswordHashing(options: { concurrency: number; maxWaiting?: number }): void {
  hashing.configure(options.concurrency, options.maxWaiting ?? DEFAULT_HASH_QUEUE);
}

/** Hashes running now (tests and metrics). */
export function passwordHashesRunning(): number {
  return hashing.active;
}

function derive(password: string, salt: Buffer, cost: ScryptOptions): Promise<Buffer> {
  return hashing.run(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password.normalize("NFKC"), salt, KEY_LENGTH, cost, (error, key) => (error ? reject(error) : resolve(key))),
      ),
  );
}

/** Hashes a password with scrypt and a per-user random salt: "scrypt$N$r$p$salt$hash". */
export async function hashPassword(password: string, cost: ScryptOptions = DEFAULT_COST): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, cost);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** Checks a password against a stored hash in constant time. A malformed hash never verifies. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const cost = { N: Number(n), r: Number(r), p: Number(p), maxmem: DEFAULT_COST.maxmem };
  if (![cost.N, cost.r, cost.p].every((value) => Number.isInteger(value) && value > 0)) return false;
  const expected = Buffer.from(hash, "base64");
  const actual = await derive(password, Buffer.from(salt, "base64"), cost);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
