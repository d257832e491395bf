import type { Contract } from "./contract.js";
import * as alerts from "./alerts.js";
import * as audit from "./audit.js";
import * as deliveries from "./deliveries.js";
import * as destinations from "./destinations.js";
import * as endpoints from "./endpoints.js";
import * as events from "./events.js";
import * as replays from "./replays.js";
import * as settings from "./settings.js";
import * as teams from "./teams.js";

/** Every operation's contract, once: what checks that every one is served and tested iterates over. */
export const ALL_CONTRACTS: readonly Contract[] = [events, deliveries, endpoints, destinations, replays, settings, teams, audit, alerts].flatMap((module) => Object.values(module) as Contract[]);
