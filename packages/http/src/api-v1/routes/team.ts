import { teamContracts } from "@rehook/services";
import { contractRoute } from "../contract-route.js";
import type { Route } from "../route.js";
import * as S from "../schemas.js";

/** The /api/v1 routes of the key's team. */
export const TEAM_ROUTES: Route[] = [contractRoute(teamContracts.currentTeamContract, { description: "The key's team and the role the key acts with", schema: S.Team, errors: [] })];
