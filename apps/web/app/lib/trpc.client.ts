import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import superjson from "superjson";
import type { AppRouter } from "@rehook/api";

let client: ReturnType<typeof createTRPCClient<AppRouter>> | undefined;

/**
 * The browser's tRPC client at /trpc: queries and mutations batched over fetch (JSON, same
 * origin, with the session cookie), subscriptions over server-sent events.
 */
export function trpc() {
  client ??= createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => op.type === "subscription",
        true: httpSubscriptionLink({ url: "/trpc", transformer: superjson }),
        false: httpBatchLink({ url: "/trpc", transformer: superjson }),
      }),
    ],
  });
  return client;
}
