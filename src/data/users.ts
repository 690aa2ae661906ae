import { requireDate } from '../db/connection.js';

/**
 * The `users` table: one account per email across the process's sites. What a site shows of a person (name, avatar)
 * may be overridden by their profile at that site (src/accounts/site-profiles.ts); the views select through it.
 */

/** A row as the drivers answer it. */
export interface UserRow {
  id: number;
  email: string;
  name: string;
  avatar_url: string | null;
  password_hash: string | null;
  created_at: unknown;
}

/** An account as the domains use it (never its password hash). */
export interface User {
  id: number;
  email: string;
  name: string;
  avatarUrl: string | null;
  createdAt: Date;
}

export function userFromRow(row: Omit<UserRow, 'password_hash'>): User {
  return { id: row.id, email: row.email, name: row.name, avatarUrl: row.avatar_url, createdAt: requireDate(row.created_at) };
}
