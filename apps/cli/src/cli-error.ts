/** A usage mistake: printed as one line with the command's usage hint, exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
