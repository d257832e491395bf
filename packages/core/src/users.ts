import { z } from "zod";

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email("must be a valid email address").max(254));

export const MIN_PASSWORD_LENGTH = 8;
/** Longer passwords are refused before hashing, on log-in as on sign-up: hashing cost grows with length. */
export const MAX_PASSWORD_LENGTH = 1024;

export const passwordSchema = z
  .string()
  .min(MIN_PASSWORD_LENGTH, `password must be at least ${MIN_PASSWORD_LENGTH} characters`)
  .max(MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`);

/** The password field of a log-in: anything non-empty up to the same maximum. */
export const loginPasswordSchema = z
  .string()
  .min(1, "password is required")
  .max(MAX_PASSWORD_LENGTH, `password must be at most ${MAX_PASSWORD_LENGTH} characters`);
