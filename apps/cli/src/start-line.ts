import type { Config } from "@rehook/core";
import type { RehookServer } from "@rehook/server";
import { startHintFor } from "@rehook/services";

/**
 * What to do next, for the start line: open the dashboard, or its sign-up page while there is
 * no user yet. The dashboard is opened at BASE_URL, or where this server listens when BASE_URL
 * is not set. Undefined when the database could not say: the line is printed without it.
 */
export async function startHintOf(rehook: RehookServer, config: Config): Promise<string | undefined> {
  const dashboardUrl = config.baseUrlIsDefault ? rehook.url : config.baseUrl;
  return startHintFor(rehook.services, dashboardUrl).catch(() => undefined);
}

/** "Rehook listening on <url> — open <url>/signup to create the first user". */
export function startLine(url: string, hint: string | undefined): string {
  return hint ? `Rehook listening on ${url} — ${hint}` : `Rehook listening on ${url}`;
}
