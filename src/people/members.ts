import { isSiteMember, OPERATOR_ROLES, ROLES, parseRole, recordMembershipChange, type Role } from '../accounts/roles.js';
import type { Knex } from 'knex';
import { refreshMembershipKeys } from '../accounts/membership-keys.js';
import { profileColumn, SITE_PROFILE } from '../accounts/site-profiles.js';
import { createUser, normalizeEmail } from '../accounts/users.js';
import { isMysql, requireDate, type Database } from '../db/connection.js';
import { listPage, parseSort, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { versionMismatch } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError } from '../shared/errors.js';
import { ACTIVE_SUBSCRIPTION_STATES } from './references.js';
import { withTransaction } from '../db/transaction.js';
import { revokeTokensNoLongerPermitted } from '../grants/access-removal.js';

/**
 * Members of a site (docs/admin-people.md): an account (`users`, global across sites) with at least one row in
 * `site_roles` for the site, which its `site_memberships` row mirrors (`joined_at` set, src/accounts/membership-keys.ts)
 * so that the list reads one index range per page. Only the site's own rows are read or written here: the roles, and the name and picture the
 * site gives the member on its `site_memberships` row (src/accounts/site-profiles.ts); the account itself is never
 * changed (another site's operator must not rename a shared account).
 *
 * Concurrency: site_roles has one row per role and no version, so each (site, account) has a `site_memberships` row
 * (migration 0010) whose version every change of the role set bumps (src/accounts/roles.ts recordMembershipChange).
 * A member's ETag is that version (which the importer's profile changes bump too) plus the account's `updated_at`:
 * `"v<version>.<updated_at in ms>"`. A PATCH starts its transaction with the compare-and-set on the membership row, so
 * of two PATCHes based on one ETag exactly one wins.
 */

export interface Member {
  id: number;
  email: string;
  name: string;
  avatarUrl: string | null;
  roles: Role[];
  joinedAt: Date;
  updatedAt: Date;
  /** site_memberships.version. */
  version: number;
  /** users.updated_at. */
  accountUpdatedAt: Date;
}

/**
 * The acting operator: the token's user and their roles at this site. A service client acts without a user and
 * without roles, so it is never an owner: it cannot touch the owner role.
 */
export interface Actor {
  userId: number | null;
  roles: readonly Role[];
}

export function memberEtag(member: Member): string {
  return `"v${member.version}.${member.accountUpdatedAt.getTime()}"`;
}

/** The (version, account stamp) an If-Match names, or null for a tag that can never be one of ours (412). */
function parseMemberEtag(ifMatch: string): { version: number; accountStamp: number } | null {
  const match = /^"v([1-9][0-9]{0,9})\.([0-9]{1,15})"$/.exec(ifMatch);
  if (!match?.[1] || !match[2]) return null;
  return { version: Number(match[1]), accountStamp: Number(match[2]) };
}

function sortRoles(roles: Iterable<Role>): Role[] {
  const held = new Set(roles);
  return ROLES.filter((role) => held.has(role));
}

interface MemberRow {
  id: number;
  email: string;
  name: string;
  avatar_url: string | null;
  user_updated_at: unknown;
  joined_at: unknown;
  version: number;
  membership_updated_at: unknown;
}

/**
 * The list's sort orders, each served by an index of site_memberships (migration 0021) ending in `user_id`, the
 * tie-breaker: a page is the next rows of one index range, whatever its position in the list.
 */
const MEMBER_SORTS: SortColumns<'joinedAt' | 'name' | 'email'> = {
  joinedAt: { column: `${SITE_PROFILE}.joined_at`, type: 'time' },
  // Names sort case-insensitively on both stores: name_key is lower-cased (SQLite compares bytes).
  name: { column: `${SITE_PROFILE}.name_key`, type: 'string' },
  email: { column: `${SITE_PROFILE}.email_key`, type: 'string' },
};

const DEFAULT_MEMBER_SORT = '-joinedAt';

export interface MemberFilters {
  role?: Role | undefined;
  q?: string | undefined;
}

/** `text` as a LIKE pattern for "starts with", LIKE's wildcards and `!` escaped with `!`. */
function prefixPattern(text: string): string {
  return `${text.replace(/[!%_]/g, (character) => `!${character}`)}%`;
}

/** The largest code point: every string that starts with a prefix sorts below the prefix followed by it (byte order). */
const AFTER_PREFIX = String.fromCodePoint(0x10ffff);

/**
 * `q`: members whose email or shown name starts with the text, ignoring case (docs/admin-people.md, List). A prefix is
 * a range of the (site_id, email_key) and (site_id, name_key) indexes, where a substring could use no index. The two
 * ranges are read separately and united, so the search reads the matching rows only (then sorts them), whatever the
 * list's order; a planner left to choose between walking the sort order's index and the two ranges may walk the whole
 * site (SQLite without statistics does). MySQL turns `LIKE 'text%'` into the range (its collation ignores case);
 * SQLite does so only for NOCASE indexes, so it gets the range itself, the text lower-cased by the same LOWER() that
 * made name_key.
 */
function membershipsStartingWith(db: Database, siteId: number, text: string): Knex.QueryBuilder {
  const email = text.trim().toLowerCase();
  const rows = () => db('site_memberships').where('site_id', siteId).select('id', 'site_id', 'user_id', 'joined_at', 'name_key', 'email_key');
  if (isMysql(db)) {
    return rows()
      .whereRaw("email_key LIKE ? ESCAPE '!'", [prefixPattern(email)])
      .union([rows().whereRaw("name_key LIKE ? ESCAPE '!'", [prefixPattern(text)])]);
  }
  return rows()
    .where('email_key', '>=', email)
    .andWhere('email_key', '<', `${email}${AFTER_PREFIX}`)
    .union([rows().whereRaw('name_key >= LOWER(?)', [text]).andWhereRaw('name_key < LOWER(?) || ?', [text, AFTER_PREFIX])]);
}

/**
 * The positions of the site's members in the list (alias `site_profile`: the membership row's id, user_id and the
 * sort column), filtered: its site_memberships rows whose account holds a role here (`joined_at` is set). Each sort
 * order's index holds every column this reads (migration 0021; an index entry carries its row's primary key), so a
 * page is the next entries of one index range; the role filter adds one lookup in site_roles' unique (site_id,
 * user_id, role) index per entry read.
 */
function memberPositions(db: Database, siteId: number, filters: MemberFilters, sortColumn: string): Knex.QueryBuilder {
  const memberships: Knex.QueryBuilder = filters.q === undefined ? db(`site_memberships as ${SITE_PROFILE}`) : db.from(membershipsStartingWith(db, siteId, filters.q).as(SITE_PROFILE));
  const rows = memberships.where(`${SITE_PROFILE}.site_id`, siteId).whereNotNull(`${SITE_PROFILE}.joined_at`).select(`${SITE_PROFILE}.id as membership_id`, `${SITE_PROFILE}.user_id`, sortColumn);
  if (filters.role !== undefined) {
    const role = filters.role;
    rows.whereExists((held: Knex.QueryBuilder) => {
      held.select(db.raw('1')).from('site_roles').where('site_roles.site_id', siteId).whereRaw('?? = ??', ['site_roles.user_id', `${SITE_PROFILE}.user_id`]).andWhere('site_roles.role', role);
    });
  }
  return rows;
}

/**
 * Members as rows: the membership row and the account (the profile the site shows), for the membership rows `which`
 * picks. Rows without `joined_at` (no role here) are dropped here rather than in SQL: given `joined_at IS NOT NULL`,
 * SQLite without statistics walks the site's (site_id, joined_at) index instead of looking the ids up.
 */
async function memberRows(db: Database, which: (memberships: Knex.QueryBuilder) => Knex.QueryBuilder): Promise<MemberRow[]> {
  const rows = (await which(db(`site_memberships as ${SITE_PROFILE}`))
    .join('users', 'users.id', `${SITE_PROFILE}.user_id`)
    .select(
      'users.id as id',
      'users.email as email',
      profileColumn(db, 'name', 'name'),
      profileColumn(db, 'avatar_url', 'avatar_url'),
      'users.updated_at as user_updated_at',
      `${SITE_PROFILE}.joined_at as joined_at`,
      `${SITE_PROFILE}.version as version`,
      `${SITE_PROFILE}.updated_at as membership_updated_at`,
    )) as MemberRow[];
  return rows.filter((row) => row.joined_at !== null);
}

/** The roles of the given members, added to their rows. */
async function withRoles(db: Database, siteId: number, rows: readonly MemberRow[]): Promise<Member[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => Number(row.id));
  const roleRows: Array<{ user_id: number; role: string }> = await db('site_roles').where('site_id', siteId).whereIn('user_id', ids).select('user_id', 'role');
  return rows.map((row) => {
    const id = Number(row.id);
    const accountUpdatedAt = requireDate(row.user_updated_at);
    const membershipUpdatedAt = requireDate(row.membership_updated_at);
    return {
      id,
      email: row.email,
      name: row.name,
      avatarUrl: row.avatar_url,
      roles: sortRoles(roleRows.filter((candidate) => Number(candidate.user_id) === id).map((candidate) => parseRole(candidate.role))),
      joinedAt: requireDate(row.joined_at),
      updatedAt: accountUpdatedAt > membershipUpdatedAt ? accountUpdatedAt : membershipUpdatedAt,
      version: Number(row.version),
      accountUpdatedAt,
    };
  });
}

/**
 * One page of members: their positions first (an index range, src/db/keyset-pagination.ts), then their rows and roles
 * by id. Reading the positions alone keeps MariaDB on the range of the sort order's index: asked for the whole rows
 * with ORDER BY … LIMIT, it would walk the site's entries from the start of the list to the cursor.
 */
export async function listMembers(db: Database, siteId: number, filters: MemberFilters, query: ListQuery): Promise<{ members: Member[]; nextCursor: string | null }> {
  const sort = parseSort(query.sort ?? DEFAULT_MEMBER_SORT, MEMBER_SORTS);
  const page = await listPage<{ membership_id: number; user_id: number }, keyof typeof MEMBER_SORTS>(memberPositions(db, siteId, filters, sort.column.column), query, {
    sorts: MEMBER_SORTS,
    defaultSort: DEFAULT_MEMBER_SORT,
    filters: { ...filters },
    idColumn: `${SITE_PROFILE}.user_id`,
  });
  const ids = page.rows.map((row) => Number(row.user_id));
  // By the membership rows' own ids (the primary key), not by site and account: with a site's account ids, MariaDB
  // may walk all of the site's entries of the (site_id, user_id) index when its statistics say a site is small.
  const membershipIds = page.rows.map((row) => Number(row.membership_id));
  const rows = new Map((membershipIds.length === 0 ? [] : await memberRows(db, (memberships) => memberships.whereIn(`${SITE_PROFILE}.id`, membershipIds))).map((row) => [Number(row.id), row]));
  const inOrder = ids.flatMap((id) => rows.get(id) ?? []);
  return { members: await withRoles(db, siteId, inOrder), nextCursor: page.nextCursor };
}

/** The member, or null when the account holds no role at this site (whatever it holds elsewhere). */
export async function findMember(db: Database, siteId: number, userId: number): Promise<Member | null> {
  const [member] = await withRoles(db, siteId, await memberRows(db, (memberships) => memberships.where(`${SITE_PROFILE}.site_id`, siteId).where(`${SITE_PROFILE}.user_id`, userId)));
  return member ?? null;
}

export async function requireMember(db: Database, siteId: number, userId: number): Promise<Member> {
  const member = await findMember(db, siteId, userId);
  if (!member) throw new NotFoundError(`No member of this site has the id ${userId}.`);
  return member;
}

function ownerRoleRestricted(): ConflictError {
  return new ConflictError('Only an owner of the site may grant or take away the owner role.', 'owner_role_restricted');
}

/**
 * The owners of the site other than `userId`, read with a lock on MySQL so that two concurrent changes that each take
 * one of the last two owners away are serialised (the second then sees no other owner). SQLite runs one writing
 * transaction at a time anyway.
 */
async function otherOwners(db: Database, siteId: number, userId: number): Promise<number> {
  const rows = db('site_roles').where({ site_id: siteId, role: 'owner' }).select('user_id');
  const owners: Array<{ user_id: number }> = isMysql(db) ? await rows.forUpdate() : await rows;
  return owners.filter((row) => Number(row.user_id) !== userId).length;
}

function lastOwner(): ConflictError {
  return new ConflictError('This is the last owner of the site; make another member an owner first.', 'last_owner');
}

export interface NewMember {
  email: string;
  name: string;
  roles: readonly Role[];
}

/**
 * Gives the account with this email the roles at this site and `name` as its name here, creating the account (without a
 * password) when no account has the email. A shared account's own name stays. 409 `member_exists` when it already
 * holds a role here.
 */
export async function addMember(db: Database, siteId: number, actor: Actor, input: NewMember): Promise<{ member: Member; accountCreated: boolean }> {
  const email = normalizeEmail(input.email);
  const roles = sortRoles(input.roles);
  if (roles.includes('owner') && !actor.roles.includes('owner')) throw ownerRoleRestricted();
  const { userId, accountCreated } = await withTransaction(db, async (trx) => {
    const existing: { id: number } | undefined = await trx('users').where({ email }).first('id');
    let id: number;
    if (existing) {
      id = Number(existing.id);
      if (await isSiteMember(trx, siteId, id)) {
        throw new ConflictError(`${email} is already a member of this site; change their roles with updateMember.`, 'member_exists');
      }
    } else {
      id = (await createUser(trx, { email, name: input.name })).id;
    }
    const now = new Date();
    await trx('site_roles').insert(roles.map((role) => ({ site_id: siteId, user_id: id, role, created_at: now })));
    await recordMembershipChange(trx, siteId, id, now);
    // The name is this site's name for the member; a shared account's own name and other sites' names stay.
    const name = input.name.trim();
    await trx('site_memberships').where({ site_id: siteId, user_id: id }).update({ name, name_key: trx.raw('LOWER(?)', [name]) });
    return { userId: id, accountCreated: !existing };
  });
  return { member: await requireMember(db, siteId, userId), accountCreated };
}

/**
 * Replaces the member's roles at this site if If-Match names the current member ETag (412 otherwise), refusing to
 * leave the site without an owner, to take the caller's own operator access away, and (for non-owners) to touch the
 * owner role. `roles` undefined (an empty patch) changes nothing but still needs a matching If-Match.
 */
export async function updateMemberRoles(db: Database, siteId: number, actor: Actor, userId: number, roles: readonly Role[] | undefined, ifMatch: string): Promise<Member> {
  const expected = parseMemberEtag(ifMatch);
  await withTransaction(db, async (trx) => {
    const current = await findMember(trx, siteId, userId);
    if (!current) throw new NotFoundError(`No member of this site has the id ${userId}.`);
    if (!expected) throw versionMismatch('member');
    const next = roles === undefined ? current.roles : sortRoles(roles);
    const removed = current.roles.filter((role) => !next.includes(role));
    const added = next.filter((role) => !current.roles.includes(role));
    if (removed.length === 0 && added.length === 0) {
      if (current.version !== expected.version || current.accountUpdatedAt.getTime() !== expected.accountStamp) throw versionMismatch('member');
      return;
    }
    // The compare-and-set comes first: it locks the membership row, so a concurrent PATCH waits, then finds 0 rows.
    const updated = await trx('site_memberships')
      .where({ site_id: siteId, user_id: userId, version: expected.version })
      .update({ version: trx.raw('version + 1'), updated_at: new Date() });
    if (updated !== 1 || current.accountUpdatedAt.getTime() !== expected.accountStamp) throw versionMismatch('member');
    if ((removed.includes('owner') || added.includes('owner')) && !actor.roles.includes('owner')) throw ownerRoleRestricted();
    if (userId === actor.userId && !next.some((role) => OPERATOR_ROLES.includes(role))) {
      throw new ConflictError('You cannot take away your own owner, operator and staff roles; ask another operator to do it.', 'cannot_remove_self');
    }
    if (removed.includes('owner') && (await otherOwners(trx, siteId, userId)) === 0) throw lastOwner();
    if (removed.length > 0) await trx('site_roles').where({ site_id: siteId, user_id: userId }).whereIn('role', removed).delete();
    if (added.length > 0) {
      const now = new Date();
      await trx('site_roles').insert(added.map((role) => ({ site_id: siteId, user_id: userId, role, created_at: now })));
    }
    // When the member joined (their oldest role) may have moved; the compare-and-set above bumped the version.
    await refreshMembershipKeys(trx, siteId, [userId]);
    if (removed.length > 0) await revokeTokensNoLongerPermitted(trx, siteId, userId);
  });
  return requireMember(db, siteId, userId);
}

/**
 * Takes every role at this site away from the account; the account, its payments, progress and history stay.
 * Refused while the member still has access here (active enrollments, live subscriptions), for the caller's own
 * account and for the last owner.
 */
export async function removeMember(db: Database, siteId: number, actor: Actor, userId: number, now: Date = new Date()): Promise<void> {
  await withTransaction(db, async (trx) => {
    const roles = (await trx('site_roles').where({ site_id: siteId, user_id: userId }).select('role')) as Array<{ role: string }>;
    if (roles.length === 0) throw new NotFoundError(`No member of this site has the id ${userId}.`);
    if (userId === actor.userId) throw new ConflictError('You cannot remove yourself from the site; ask another operator to do it.', 'cannot_remove_self');
    const isOwner = roles.some((row) => row.role === 'owner');
    if (isOwner && !actor.roles.includes('owner')) throw ownerRoleRestricted();
    if (isOwner && (await otherOwners(trx, siteId, userId)) === 0) throw lastOwner();
    const enrollment = await trx('enrollments')
      .where({ site_id: siteId, user_id: userId })
      .andWhere((active) => {
        active.where('has_lifetime_access', true).orWhereNull('expires_at').orWhere('expires_at', '>', now);
      })
      .first('id');
    const subscription = await trx('subscriptions').where({ site_id: siteId, user_id: userId }).whereIn('state', [...ACTIVE_SUBSCRIPTION_STATES]).first('id');
    if (enrollment || subscription) {
      throw new ConflictError(
        'The member still has active enrollments or subscriptions at this site. End their enrollments (deleteEnrollment, or an expiresAt in the past) and cancel their subscriptions first.',
        'member_has_active_access',
      );
    }
    await trx('site_roles').where({ site_id: siteId, user_id: userId }).delete();
    await recordMembershipChange(trx, siteId, userId, now);
    await revokeTokensNoLongerPermitted(trx, siteId, userId, now);
  });
}

/**
 * The operator CLI's `role revoke`: takes one role away (no actor checks; the CLI runs with the database's
 * authority) and revokes the tokens of clients the remaining roles no longer permit. Refuses to remove the last owner.
 */
export async function revokeRole(db: Database, siteId: number, userId: number, role: Role, now: Date = new Date()): Promise<{ revoked: boolean; revokedPairs: number }> {
  return withTransaction(db, async (trx) => {
    const deleted = await trx('site_roles').where({ site_id: siteId, user_id: userId, role }).delete();
    if (deleted === 0) return { revoked: false, revokedPairs: 0 };
    if (role === 'owner' && (await otherOwners(trx, siteId, userId)) === 0) throw lastOwner();
    await recordMembershipChange(trx, siteId, userId, now);
    return { revoked: true, revokedPairs: await revokeTokensNoLongerPermitted(trx, siteId, userId, now) };
  });
}
