import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';

/**
 * A member's profile at a site (docs/data-model.md, Accounts shared by schools): the name and picture the school gave
 * the account on its `site_memberships` row, falling back to the account's own. Every query that shows a member at a
 * site reads them through these helpers, so no school sees what another school wrote.
 */

/** The alias the site profile is joined under. */
export const SITE_PROFILE = 'site_profile';

/**
 * Left-joins the account's profile at the site onto a query: `siteId` is a site id, or a column naming it (e.g. the
 * token's `t.site_id`); `userIdColumn` names the account. One row at most per account (site_id, user_id is unique).
 */
export function joinSiteProfile(query: Knex.QueryBuilder, siteId: number | string, userIdColumn: string, alias: string = SITE_PROFILE): Knex.QueryBuilder {
  return query.leftJoin(`site_memberships as ${alias}`, (on) => {
    on.on(`${alias}.user_id`, userIdColumn);
    if (typeof siteId === 'number') on.andOnVal(`${alias}.site_id`, siteId);
    else on.andOn(`${alias}.site_id`, siteId);
  });
}

/** `COALESCE(site_profile.<column>, users.<column>) as <as>`: the school's value, else the account's own. */
export function profileColumn(db: Database, column: 'name' | 'avatar_url', as: string, usersAlias = 'users', alias: string = SITE_PROFILE): Knex.Raw {
  return db.raw('COALESCE(??, ??) as ??', [`${alias}.${column}`, `${usersAlias}.${column}`, as]);
}
