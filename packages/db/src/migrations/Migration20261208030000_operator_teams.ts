import { Migration } from "@mikro-orm/migrations";

/**
 * Teams record whether an operator made them: `rehook team create` on the server's host, or a
 * server admin (users.is_admin) in the dashboard or the API. Only such a team may be
 * OIDC_DEFAULT_TEAM, which every account single sign-on creates joins: any user can make a
 * team, and could otherwise make one with that slug first and collect those accounts.
 *
 * Nothing recorded who made a team before, so on upgrade a shared team counts as an operator's
 * when a server admin owns it; any other team the operator means for OIDC_DEFAULT_TEAM is
 * marked by `rehook team adopt --slug <slug>` on the server's host.
 */
export class Migration20261208030000_operator_teams extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "teams" add column "made_by_operator" boolean not null default false;`);
    this.addSql(`
      update "teams" t set "made_by_operator" = true
       where t."personal_of_id" is null
         and exists (select 1 from "team_members" m join "users" u on u."id" = m."user_id"
                      where m."team_id" = t."id" and m."role" = 'owner' and u."is_admin");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "teams" drop column "made_by_operator";`);
  }
}
