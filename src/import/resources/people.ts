import { hashPassword, verifyPassword } from '../../accounts/passwords.js';
import { recordMembershipChange } from '../../accounts/roles.js';
import { normalizeEmail } from '../../accounts/users.js';
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
 * Accounts (global, keyed by email), their profile and password at this site, and their roles here. An account the
 * document names for the first time is created with its name and picture; after that the import writes only this
 * site's `site_memberships` row (src/accounts/site-profiles.ts), so it never changes what another school shows of a
 * shared account or how anyone signs in there. The password signs the account in at this site only.
 */
export async function importUsers(ctx: ImportContext): Promise<void> {
  for (const user of ctx.document.users ?? []) {
    const email = normalizeEmail(user.email);
    const existing: { id: number } | undefined = await ctx.trx('users').where({ email }).first('id');
    const id = existing ? Number(existing.id) : await ctx.save('users', { email }, { name: user.name, avatar_url: user.avatarUrl ?? null });
    if (existing) ctx.counts.users.unchanged += 1;
    ctx.users.set(email, id);
    const membership = { site_id: ctx.siteId, user_id: id };
    const stored: { password_hash: string | null } | undefined = await ctx.trx('site_memberships').where(membership).first('password_hash');
    await ctx.link('site_memberships', membership, { name: user.name, avatar_url: user.avatarUrl ?? null, ...(await passwordColumn(user, stored?.password_hash)) });
    const rolesCreated = ctx.counts.site_roles.created;
    for (const role of user.roles) await ctx.link('site_roles', { ...membership, role });
    // A new role changes the member (and its admin API ETag); a re-import that adds none writes nothing.
    if (ctx.counts.site_roles.created > rolesCreated) await recordMembershipChange(ctx.trx, ctx.siteId, id, ctx.now);
  }
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
