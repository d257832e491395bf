import { safeText } from "./text-input.js";

export const endpointNameSchema = safeText()
  .trim()
  .min(1, "name is required")
  .max(100, "name must be at most 100 characters");

/** The capture URL of an endpoint. */
export function webhookUrl(baseUrl: string, slug: string): string {
  return `${baseUrl}/api/webhook/${slug}`;
}

/** Capture paths: /api/webhook/{slug} plus an optional sub-path that is captured too. */
const CAPTURE_PATH = /^\/api\/webhook\/([^/?#]+)(\/[^?#]*)?$/;

export interface CapturePath {
  slug: string;
  subPath: string;
}

export function parseCapturePath(pathname: string): CapturePath | undefined {
  const match = CAPTURE_PATH.exec(pathname);
  if (!match) return undefined;
  return { slug: match[1]!, subPath: match[2] ?? "" };
}
