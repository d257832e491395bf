import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

const CANDIDATES = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** Debian's Chromium (or CHROMIUM_PATH). Missing is a failure, never a silent pass. */
export function chromiumPath(): string {
  const found = CANDIDATES.find((candidate): candidate is string => !!candidate && existsSync(candidate));
  if (!found) {
    throw new Error(
      "NO BROWSER FOUND: the dashboard's browser tests need Chromium. Install it (apt-get install -y chromium) or set CHROMIUM_PATH. " +
        ".ci/run installs it when missing.",
    );
  }
  return found;
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile of its own. */
export async function launchBrowser(options: { colorScheme?: "light" | "dark"; width?: number; height?: number } = {}): Promise<Browser> {
  const profile = await mkdtemp(path.join(tmpdir(), "rehook-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: options.width ?? 1280, height: options.height ?? 860 },
    colorScheme: options.colorScheme ?? "light",
    permissions: ["clipboard-read", "clipboard-write"],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
