import { UsageError } from "../cli-error.js";
import { listen } from "../listen/listener.js";
import { createReporter } from "../listen/report.js";
import { onStopSignals } from "../stop-signals.js";
import { defineCommand } from "./define.js";

/**
 * The local URL events go to. Without a scheme (`localhost:3000/hooks`, `3000`) http:// is
 * meant: that is what a local development server speaks.
 */
export function forwardUrl(text: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : /^\d+(\/|$)/.test(text) ? `http://localhost:${text}` : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(`--forward ${text} is not a URL; give one like http://localhost:3000/webhooks`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UsageError(`--forward must be an http:// or https:// URL, not ${url.protocol}//`);
  return url;
}

export const listenCommand = defineCommand(
  ["listen"],
  {
    usage: "rehook listen --endpoint <slug> --forward <local url> [--server <url>] [--api-key <key>] [--retry <n>] [--json]",
    summary: "Stream an endpoint's new events to a local server (reconnects and catches up by itself; Ctrl-C for a summary).",
    options: {
      endpoint: { type: "string", required: true, description: "the endpoint's slug" },
      forward: { type: "string", required: true, description: "where to send each event, e.g. http://localhost:3000/webhooks (localhost:3000/webhooks and 3000 mean http://)" },
      server: { type: "string", description: "the Rehook server (default: REHOOK_URL, else the server rehook start runs on this data directory, else http://localhost:8080)" },
      "api-key": { type: "string", description: "a pk_live_ API key (default: REHOOK_API_KEY)" },
      retry: { type: "string", description: "attempts per event after a failure (default 0)" },
      json: { type: "boolean", description: "one JSON object a line (connected, event, reconnecting, unreachable, summary) for scripts" },
    },
  } as const,
  async (options, context) => {
    const apiKey = options["api-key"] ?? context.client.apiKey;
    if (!apiKey) throw new UsageError("An API key is needed. Give --api-key or set REHOOK_API_KEY.");
    const retries = options.retry === undefined ? 0 : Number(options.retry);
    if (!Number.isInteger(retries) || retries < 0 || retries > 20) throw new UsageError("--retry must be a whole number from 0 to 20");
    const forward = forwardUrl(options.forward);
    const server = (options.server ?? context.client.serverUrl ?? "http://localhost:8080").replace(/\/+$/, "");
    const report = createReporter(context.stdout, options.json ? "json" : "text", context.client.color);
    const stop = new AbortController();
    const interrupt = () => stop.abort();
    const removeSignalHandlers = onStopSignals(interrupt, { once: true });
    try {
      // A ListenError (wrong key, no such endpoint) ends the command with one line and exit 1.
      const summary = await listen({
        server,
        apiKey,
        endpointSlug: options.endpoint,
        forward: forward.href,
        retries,
        report,
        signal: stop.signal,
      });
      report({ type: "summary", ...summary });
      return undefined;
    } finally {
      removeSignalHandlers();
    }
  },
);
