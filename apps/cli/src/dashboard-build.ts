import { createRequire } from "node:module";
import path from "node:path";

/**
 * Where the dashboard's built pages are: the build folder of @rehook/web, which the CLI
 * depends on for those files only (it never imports an app's code; see tooling/lint).
 */
export function dashboardBuildDir(): string {
  const manifest = createRequire(import.meta.url).resolve("@rehook/web/package.json");
  return path.join(path.dirname(manifest), "build");
}
