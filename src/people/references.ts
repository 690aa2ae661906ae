import { isSiteMember } from '../accounts/roles.js';
import type { Database } from '../db/connection.js';
import { ValidationError } from '../shared/errors.js';

/** Subscription states that still give access: a member in one of them cannot be removed from the site. */
export const ACTIVE_SUBSCRIPTION_STATES = ['trialing', 'active', 'past_due'] as const;

/**
 * A `userId` in a request body must name a member of this site: 400 with the pointer otherwise. Accounts without a
 * role here are never looked up by id, so an operator cannot probe other sites' accounts; people are added by email
 * (createMember).
 */
export async function requireMemberReference(db: Database, siteId: number, userId: number, pointer = '/userId'): Promise<void> {
  if (!(await isSiteMember(db, siteId, userId))) {
    throw new ValidationError(`No member of this site has the id ${userId}.`, [{ pointer, message: 'is not a member of this site (add them with createMember first)' }]);
  }
}
