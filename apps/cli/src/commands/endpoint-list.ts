import { restEndpointList } from "@rehook/http";
import { endpointContracts, listEndpoints, parseInput, type EndpointListItem } from "@rehook/services";
import { contractFields, contractFlags, fromFlags } from "../contract-options.js";
import { serverConfig } from "../env.js";
import { instant, renderTable, type Column } from "../output/table.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";
import { initOption } from "./with-database.js";

const contract = endpointContracts.listEndpointsContract;
/** The endpoints.list contract's paging as flags. */
const PAGE_FLAGS = { limit: "limit", offset: "offset" };
const PAGE_HELP = { limit: "at most this many, 1 to 100 (default: all)", offset: "skip this many first (default 0)" };

function healthColor(state: string): number | undefined {
  if (state === "healthy") return 32;
  if (state === "unhealthy") return 31;
  return state === "degraded" ? 33 : undefined;
}

const COLUMNS: Column<EndpointListItem>[] = [
  { header: "ID", width: 36, value: (e) => e.id },
  { header: "SLUG", width: 24, value: (e) => e.slug },
  { header: "NAME", width: 20, value: (e) => e.name },
  { header: "EVENTS", width: 8, align: "right", value: (e) => e.eventCount.toLocaleString("en-US") },
  { header: "LAST EVENT", width: 20, value: (e) => instant(e.lastEventAt) },
  { header: "HEALTH", width: 9, value: (e) => (e.forwardingPaused ? "paused" : e.health.state), color: (e) => (e.forwardingPaused ? 31 : healthColor(e.health.state)) },
  { header: "DESTINATION", width: 60, value: (e) => e.destinationUrl ?? "(capture only)" },
];

export const endpointListCommand = defineCommand(
  ["endpoint", "list"],
  {
    usage: "rehook endpoint list --email <email> [--team <slug>] [--limit <n>] [--offset <n>] [--json]",
    summary: "List a team's endpoints, oldest first: a table, or with --json the API's list ({data, meta}).",
    options: {
      ...memberOptions,
      ...contractFlags(contractFields(contract), PAGE_FLAGS, PAGE_HELP),
      json: { type: "boolean", description: "print what GET /api/v1/endpoints answers, for scripts" },
      ...initOption,
    },
  } as const,
  async (options, context) => {
    const { limit, offset } = parseInput(contract.input, fromFlags(contractFields(contract), PAGE_FLAGS, options));
    // webhook_url and kept_for_days as the running server has them (see endpoint create).
    const { baseUrl, captureBaseUrl, retentionDays } = serverConfig(context.config);
    const page = await asMember(
      context,
      options,
      contract,
      async ({ orm }, actor) => {
        // What endpoints.list runs: every endpoint of the team, then the page asked for.
        const all = await listEndpoints({ orm, baseUrl, captureBaseUrl, retentionDays }, { teamId: actor.teamId });
        return { endpoints: all.slice(offset, limit === undefined ? undefined : offset + limit), total: all.length };
      },
      options,
    );
    if (options.json) return restEndpointList(page, { limit, offset });
    if (page.total === 0) {
      context.stdout.write("No endpoints yet. Create one with rehook endpoint create.\n");
      return undefined;
    }
    context.stdout.write(`${renderTable(page.endpoints, COLUMNS, context.client.color)}\n`);
    if (page.endpoints.length < page.total) context.stdout.write(`\n${page.endpoints.length} of ${page.total} endpoints (--offset and --limit for others)\n`);
    return undefined;
  },
);
