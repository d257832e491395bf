/** How far a signed timestamp may be from the server's clock, in either direction (replay window). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

// Digits only, and few enough that Number() is exact: "1e9", "-5", " 12" and 10^30 are not timestamps.
const UNIX_SECONDS = /^\d{1,12}$/;

/** Whether a timestamp header's text is Unix seconds within the tolerance of now (false for NaN clocks). */
export function isTimestampFresh(text: string, nowSeconds: number): boolean {
  if (!UNIX_SECONDS.test(text)) return false;
  return Math.abs(nowSeconds - Number(text)) <= SIGNATURE_TOLERANCE_SECONDS;
}
