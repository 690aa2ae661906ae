import { userFromRow, type User, type UserRow } from '../data/users.js';
import type { Database } from '../db/connection.js';
import { ConflictError, NotFoundError, ValidationError } from '../shared/errors.js';
import { hashPassword } from './passwords.js';
import { joinSiteProfile, profileColumn, SITE_PROFILE } from './site-profiles.js';

export { userFromRow, type User } from '../data/users.js';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL.test(normalized)) throw new ValidationError(`"${email}" is not an email address`, [{ pointer: '/email', message: 'must be an email address' }]);
  return normalized;
}

export const MIN_PASSWORD_LENGTH = 8;

export function checkPasswordStrength(password: string, pointer = '/password'): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new ValidationError(`a password needs at least ${MIN_PASSWORD_LENGTH} characters`, [{ pointer, message: `must have at least ${MIN_PASSWORD_LENGTH} characters` }]);
  }
}

export async function findUserByEmail(db: Database, email: string): Promise<(User & { passwordHash: string | null }) | null> {
  const row = await db<UserRow>('users').where({ email: normalizeEmail(email) }).first();
  return row ? { ...userFromRow(row), passwordHash: row.password_hash } : null;
}

export async function getUser(db: Database, id: number): Promise<User> {
  const row = await db<UserRow>('users').where({ id }).first();
  if (!row) throw new NotFoundError(`user ${id} does not exist`, 'user_not_found');
  return userFromRow(row);
}

/** Accounts with their name and picture at a site (the school's, else the account's own): the columns of userFromRow. */
function usersAt(db: Database, siteId: number) {
  return joinSiteProfile(db('users'), siteId, 'users.id').select('users.id', 'users.email', profileColumn(db, 'name', 'name'), profileColumn(db, 'avatar_url', 'avatar_url'), 'users.created_at');
}

/** The account as a site shows it: its name and picture at that site (the school's, else the account's own). */
export async function getUserAt(db: Database, siteId: number, id: number): Promise<User> {
  const row: Omit<UserRow, 'password_hash'> | undefined = await usersAt(db, siteId).where('users.id', id).first();
  if (!row) throw new NotFoundError(`user ${id} does not exist`, 'user_not_found');
  return userFromRow(row);
}

/**
 * The account of an email as a site shows it, with the password hashes that sign it in there: the one the site gave
 * it (an import), then the account's own; another site's never (docs/data-model.md, Accounts shared by schools). One
 * statement. Null for an unknown or malformed email.
 */
export async function findSignInAccountAt(db: Database, siteId: number, email: string): Promise<{ user: User; passwordHashes: string[] } | null> {
  let normalized: string;
  try {
    normalized = normalizeEmail(email);
  } catch {
    return null;
  }
  const row: (UserRow & { site_password_hash: string | null }) | undefined = await usersAt(db, siteId)
    .select('users.password_hash', `${SITE_PROFILE}.password_hash as site_password_hash`)
    .where('users.email', normalized)
    .first();
  if (!row) return null;
  return { user: userFromRow(row), passwordHashes: [row.site_password_hash, row.password_hash].filter((hash): hash is string => typeof hash === 'string') };
}

export interface NewUser {
  email: string;
  name: string;
  password?: string | undefined;
  avatarUrl?: string | undefined;
}

export async function createUser(db: Database, input: NewUser): Promise<User> {
  const email = normalizeEmail(input.email);
  if (input.name.trim() === '') throw new ValidationError('a user needs a name', [{ pointer: '/name', message: 'must not be empty' }]);
  if (input.password !== undefined) checkPasswordStrength(input.password);
  if (await db('users').where({ email }).first()) throw new ConflictError(`a user with email ${email} exists already`, 'user_exists');
  const now = new Date();
  const [id] = await db('users').insert({
    email,
    name: input.name.trim(),
    avatar_url: input.avatarUrl ?? null,
    password_hash: input.password === undefined ? null : await hashPassword(input.password),
    created_at: now,
    updated_at: now,
  });
  return getUser(db, Number(id));
}

/** Sets or replaces the password of the account with this email (NotFoundError `user_not_found` if there is none). */
export async function setUserPassword(db: Database, email: string, password: string): Promise<User> {
  checkPasswordStrength(password);
  const account = await findUserByEmail(db, email);
  if (!account) throw new NotFoundError(`no user has the email ${normalizeEmail(email)}`, 'user_not_found');
  await db('users').where({ id: account.id }).update({ password_hash: await hashPassword(password), updated_at: new Date() });
  return getUser(db, account.id);
}
