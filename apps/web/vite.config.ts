import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig } from "vite";

// The dashboard's build: build/client (static assets) and build/server (the Remix handler
// that packages/server/src/remix-handler.ts loads). Server packages are never bundled into the browser:
// app/ imports only types from @rehook/api.
export default defineConfig({
  plugins: [
    remix({
      appDirectory: "app",
      buildDirectory: "build",
      future: {
        v3_fetcherPersist: true,
        v3_relativeSplatPath: true,
        v3_throwAbortReason: true,
        v3_singleFetch: true,
        v3_lazyRouteDiscovery: true,
      },
    }),
  ],
  build: { sourcemap: false },
  logLevel: "warn",
});
