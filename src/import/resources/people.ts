import { hashPassword, verifyPassword } from '../../accounts/passwords.js';
import { normalizeEmail } from '../../accounts/users.js';
import { membershipKeyUpdates, newMembershipKeys, refreshMembershipKeys } from '../../accounts/membership-keys.js';
import type { UserInput } from '../document.js';
import type { ImportContext } from '../context.js';
import type { Row } from '../upsert.js';

/**
 * The password_hash to store on the site's membership, or nothing (keep the stored one). A plain password is hashed
 * only when the stored hash does not already verify it, so a re-import does not re-hash (scrypt salts differ on every
 * hash).
 */
async function passwordColumn(user: UserInput, storedHash: string | null | undefined): Promise<Row> {
  if (user.passwordHash !== undefined) return { password_hash: user.passwordHash };
  if (user.password === undefined) return {};
  if (storedHash && (await verifyPassword(user.password, storedHash).catch(() => false))) return { password_hash: storedHash };
  return { password_hash: await hashPassword(user.password) };
}

/**
 * Accounts (global, keyed by email), their profile and password at this site, and their roles here, for one chunk of
 * the document's users: a few statements per table for the whole chunk (upsert-batch.ts). An account the document
 * names for the first time is created with its name and picture; after that the import writes only this site's
 * `site_memberships` row (src/accounts/site-profiles.ts), so it never changes what another school shows of a shared
 * account or how anyone signs in there. The password signs the account in at this site only.
 */
export async function importUsers(ctx: ImportContext, users: readonly UserInput[]): Promise<void> {
  const emails = users.map((user) => normalizeEmail(user.email));
  const accounts = await ctx.saveAll(
    'users',
    users.map((user, index) => ({ keys: [{ email: emails[index] ?? '' }], values: { name: user.name, avatar_url: user.avatarUrl ?? null } })),
    { ids: true, insertOnly: true },
  );
  const ids = accounts.map(({ id }, index) => {
    if (id === null) throw new Error(`import: no id for user ${emails[index] ?? ''}`);
    ctx.users.set(emails[index] ?? '', id);
    return id;
  });
  // Roles first, so that a membership inserted below is born with what recordMembershipChange (src/accounts/roles.ts)
  // would leave after them: its version bumped once and the member list's keys (src/accounts/membership-keys.ts).
  const roles = users.flatMap((user, index) => [...new Set(user.roles)].map((role) => ({ user_id: ids[index] ?? 0, role })));
  const written = await ctx.saveAll(
    'site_roles',
    roles.map((role) => ({ keys: [{ site_id: ctx.siteId, ...role }], values: {} })),
    { noneStored: ctx.siteCreated },
  );
  const gotRole = new Set(roles.flatMap((role, index) => (written[index]?.outcome === 'created' ? [role.user_id] : [])));
  const storedHashes = await storedPasswordHashes(ctx, users, ids);
  const memberships = await Promise.all(
    users.map(async (user, index) => {
      const userId = ids[index] ?? 0;
      return {
        keys: [{ site_id: ctx.siteId, user_id: userId }],
        values: { name: user.name, avatar_url: user.avatarUrl ?? null, ...(await passwordColumn(user, storedHashes.get(userId))) },
        inserted: { ...membershipKeys(ctx, userId, accounts[index]?.outcome === 'created' ? (emails[index] ?? null) : null, gotRole.has(userId)), name_key: ctx.trx.raw('LOWER(?)', [user.name]), version: gotRole.has(userId) ? 2 : 1 },
      };
    }),
  );
  const membershipsWritten = await ctx.saveAll('site_memberships', memberships, { noneStored: ctx.siteCreated });
  // A stored membership given a new role: recordMembershipChange for all of them in one statement. One only renamed
  // here gets its list keys refreshed. A re-import that changes nothing writes nothing.
  const bumped = ids.filter((id, index) => gotRole.has(id) && membershipsWritten[index]?.outcome !== 'created');
  if (bumped.length > 0) {
    await ctx
      .trx('site_memberships')
      .where({ site_id: ctx.siteId })
      .whereIn('user_id', bumped)
      .update({ version: ctx.trx.raw('?? + 1', ['version']), updated_at: ctx.now, ...membershipKeyUpdates(ctx.trx) });
  }
  const renamed = ids.filter((id, index) => membershipsWritten[index]?.outcome === 'updated' && !gotRole.has(id));
  if (renamed.length > 0) await refreshMembershipKeys(ctx.trx, ctx.siteId, renamed);
}

/**
 * joined_at and email_key of a membership about to be inserted (src/accounts/membership-keys.ts), as plain values where
 * this import knows them: on a site it created, a member given roles now joined now; an account it created has the
 * email it was given. Otherwise the subqueries of newMembershipKeys, which cost a lookup per row.
 */
function membershipKeys(ctx: ImportContext, userId: number, createdEmail: string | null, gotRole: boolean) {
  const keys = newMembershipKeys(ctx.trx, ctx.siteId, userId);
  return {
    joined_at: ctx.siteCreated ? (gotRole ? ctx.now : null) : keys.joined_at,
    email_key: createdEmail ?? keys.email_key,
  };
}

/** The stored password hashes of the chunk's members at this site, read only when a plain password must be checked. */
async function storedPasswordHashes(ctx: ImportContext, users: readonly UserInput[], ids: readonly number[]): Promise<Map<number, string | null>> {
  const hashes = new Map<number, string | null>();
  const checked = ids.filter((_, index) => users[index]?.password !== undefined);
  if (checked.length === 0 || ctx.siteCreated) return hashes;
  const rows: Array<{ user_id: number; password_hash: string | null }> = await ctx.trx('site_memberships').where({ site_id: ctx.siteId }).whereIn('user_id', checked).select('user_id', 'password_hash');
  for (const row of rows) hashes.set(Number(row.user_id), row.password_hash);
  return hashes;
}

/** Lecturer profiles, keyed by (site, user). */
export async function importLecturers(ctx: ImportContext): Promise<void> {
  for (const lecturer of ctx.document.lecturers ?? []) {
    const email = normalizeEmail(lecturer.user);
    const id = await ctx.save(
      'lecturer_profiles',
      { site_id: ctx.siteId, user_id: ctx.users.get(email) },
      { display_name: lecturer.displayName, bio: lecturer.bio ?? null, avatar_url: lecturer.avatarUrl ?? null },
    );
    ctx.lecturers.set(email, id);
  }
}
