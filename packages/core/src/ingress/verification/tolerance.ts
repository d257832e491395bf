/** How far a signed timestamp may be from the server's clock, in either direction (replay window). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

// Digits only, and few enough that Number() is exact: "1e9", "-5", " 12" and 10^30 are not timestamps.
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * What is wrong with a timestamp header's text, if anything: "malformed" when it is not Unix
 * seconds, "stale_timestamp" when it is further than the tolerance from now (always for NaN clocks).
 */
export function timestampProblem(text: string, nowSeconds: number): "malformed" | "stale_timestamp" | undefined {
  if (!UNIX_SECONDS.test(text)) return "malformed";
  return Math.abs(nowSeconds - Number(text)) <= SIGNATURE_TOLERANCE_SECONDS ? undefined : "stale_timestamp";
}
