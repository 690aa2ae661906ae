import { requireDate, toDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow, versionMismatch } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { ACTIVE_SUBSCRIPTION_STATES, requireMemberReference } from './references.js';
import { withTransaction } from '../db/transaction.js';

/**
 * Subscriptions of a site's members to its membership plans (docs/admin-people.md, Subscriptions). They are billing
 * history: never deleted, only canceled or expired. The state machine:
 *
 *   trialing → active | canceled | expired
 *   active   → past_due | canceled | expired
 *   past_due → active | canceled | expired
 *   canceled, expired: final
 *
 * `canceled` is reached only through the cancel action (which records canceled_at); merge patches move along the
 * other edges and change the current period of a live (trialing, active, past-due) subscription.
 */

export type SubscriptionState = 'trialing' | 'active' | 'past_due' | 'canceled' | 'expired';

const STATES: readonly SubscriptionState[] = ['trialing', 'active', 'past_due', 'canceled', 'expired'];

/** The edges a merge patch may take (canceling is the cancel action's). */
const PATCH_TRANSITIONS: Readonly<Record<SubscriptionState, readonly SubscriptionState[]>> = {
  trialing: ['active', 'expired'],
  active: ['past_due', 'expired'],
  past_due: ['active', 'expired'],
  canceled: [],
  expired: [],
};

export interface Subscription {
  id: number;
  userId: number;
  planId: number;
  state: SubscriptionState;
  startedAt: Date;
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
  canceledAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface SubscriptionRow {
  id: number;
  user_id: number;
  plan_id: number;
  state: string;
  started_at: unknown;
  current_period_start: unknown;
  current_period_end: unknown;
  canceled_at: unknown;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

function subscriptionFromRow(row: SubscriptionRow): Subscription {
  const state = STATES.find((candidate) => candidate === row.state);
  if (!state) throw new Error(`subscription ${row.id} has the unknown state ${row.state}`);
  return {
    id: Number(row.id),
    userId: Number(row.user_id),
    planId: Number(row.plan_id),
    state,
    startedAt: requireDate(row.started_at),
    currentPeriodStart: requireDate(row.current_period_start),
    currentPeriodEnd: requireDate(row.current_period_end),
    canceledAt: toDate(row.canceled_at),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

const SUBSCRIPTION_SORTS: SortColumns<'createdAt' | 'startedAt' | 'currentPeriodEnd'> = {
  createdAt: { column: 'created_at', type: 'time' },
  startedAt: { column: 'started_at', type: 'time' },
  currentPeriodEnd: { column: 'current_period_end', type: 'time' },
};

export interface SubscriptionFilters {
  state?: SubscriptionState | undefined;
  planId?: number | undefined;
  userId?: number | undefined;
}

export async function listSubscriptions(db: Database, siteId: number, filters: SubscriptionFilters, query: ListQuery): Promise<{ subscriptions: Subscription[]; nextCursor: string | null }> {
  const builder = db('subscriptions').where({ site_id: siteId });
  if (filters.state !== undefined) builder.andWhere('state', filters.state);
  if (filters.planId !== undefined) builder.andWhere('plan_id', filters.planId);
  if (filters.userId !== undefined) builder.andWhere('user_id', filters.userId);
  const page = await listPage<SubscriptionRow, keyof typeof SUBSCRIPTION_SORTS>(builder, query, { sorts: SUBSCRIPTION_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { subscriptions: page.rows.map(subscriptionFromRow), nextCursor: page.nextCursor };
}

export async function requireSubscription(db: Database, siteId: number, subscriptionId: number): Promise<Subscription> {
  const row = (await db('subscriptions').where({ id: subscriptionId, site_id: siteId }).first()) as SubscriptionRow | undefined;
  if (!row) throw new NotFoundError(`This site has no subscription ${subscriptionId}.`);
  return subscriptionFromRow(row);
}

function invalidTransition(current: SubscriptionState, action: string): ConflictError {
  return new ConflictError(`The subscription is ${current}; it cannot ${action}.`, 'invalid_state_transition');
}

export interface NewSubscription {
  userId: number;
  planId: number;
  state?: 'trialing' | 'active' | undefined;
  currentPeriodStart: string;
  currentPeriodEnd: string;
}

/** Grants a member an active plan of this site for a first period (no payment); one live subscription per plan. */
export async function createSubscription(db: Database, siteId: number, input: NewSubscription): Promise<Subscription> {
  const start = new Date(input.currentPeriodStart);
  const end = new Date(input.currentPeriodEnd);
  const problems: FieldProblem[] = [];
  if (end.getTime() <= start.getTime()) problems.push({ pointer: '/currentPeriodEnd', message: 'must be after currentPeriodStart' });
  const plan: { active: number | boolean } | undefined = await db('membership_plans').where({ id: input.planId, site_id: siteId }).first('active');
  if (!plan) problems.push({ pointer: '/planId', message: 'is not a membership plan of this site' });
  else if (!plan.active) problems.push({ pointer: '/planId', message: 'is deactivated: it takes no new subscriptions (activate it first)' });
  if (problems.length > 0) throw new ValidationError('The subscription is not valid.', problems);
  await requireMemberReference(db, siteId, input.userId);
  const id = await withTransaction(db, async (trx) => {
    const live = await trx('subscriptions').where({ site_id: siteId, user_id: input.userId, plan_id: input.planId }).whereIn('state', [...ACTIVE_SUBSCRIPTION_STATES]).first('id');
    if (live) throw new ConflictError('The member already has a trialing, active or past-due subscription to this plan; renew or change that one instead.', 'already_subscribed');
    const now = new Date();
    const [inserted] = await trx('subscriptions').insert({
      site_id: siteId,
      plan_id: input.planId,
      user_id: input.userId,
      state: input.state ?? 'active',
      started_at: start,
      current_period_start: start,
      current_period_end: end,
      canceled_at: null,
      version: 1,
      created_at: now,
      updated_at: now,
    });
    return Number(inserted);
  });
  return requireSubscription(db, siteId, id);
}

export interface SubscriptionChanges {
  state?: 'active' | 'past_due' | 'expired' | undefined;
  currentPeriodStart?: string | undefined;
  currentPeriodEnd?: string | undefined;
}

/** Merge patch along the allowed transitions, at the version If-Match names (compare-and-set). */
export async function updateSubscription(db: Database, siteId: number, subscriptionId: number, changes: SubscriptionChanges, expectedVersion: number): Promise<Subscription> {
  const current = await requireSubscription(db, siteId, subscriptionId);
  const columns: Record<string, unknown> = {};
  const periodChange = changes.currentPeriodStart !== undefined || changes.currentPeriodEnd !== undefined;
  const stateChange = changes.state !== undefined && changes.state !== current.state;
  if (periodChange || stateChange) {
    // A stale ETag is reported as such (412) before the state rules, which judge the state the caller did not see.
    if (current.version !== expectedVersion) throw versionMismatch('subscription');
  }
  if (stateChange && changes.state !== undefined) {
    if (!PATCH_TRANSITIONS[current.state].includes(changes.state)) {
      throw invalidTransition(current.state, `become ${changes.state}${current.state === 'canceled' || current.state === 'expired' ? ` (${current.state} is final)` : ''}`);
    }
    columns.state = changes.state;
  }
  if (periodChange) {
    if (current.state === 'canceled' || current.state === 'expired') throw invalidTransition(current.state, 'get a new period (it is final)');
    const start = changes.currentPeriodStart === undefined ? current.currentPeriodStart : new Date(changes.currentPeriodStart);
    const end = changes.currentPeriodEnd === undefined ? current.currentPeriodEnd : new Date(changes.currentPeriodEnd);
    if (end.getTime() <= start.getTime()) {
      throw new ValidationError('The subscription is not valid.', [{ pointer: changes.currentPeriodEnd === undefined ? '/currentPeriodStart' : '/currentPeriodEnd', message: 'the period must end after it starts' }]);
    }
    Object.assign(columns, { current_period_start: start, current_period_end: end });
  }
  await updateVersionedRow(db, 'subscriptions', { id: subscriptionId, site_id: siteId }, expectedVersion, columns, { what: 'subscription', notFound: `This site has no subscription ${subscriptionId}.` });
  return requireSubscription(db, siteId, subscriptionId);
}

/** trialing | active | past_due → canceled, recording canceled_at; a canceled or expired one is a 409 naming its state. */
export async function cancelSubscription(db: Database, siteId: number, subscriptionId: number, now: Date = new Date()): Promise<Subscription> {
  const current = await requireSubscription(db, siteId, subscriptionId);
  if (!(ACTIVE_SUBSCRIPTION_STATES as readonly string[]).includes(current.state)) throw invalidTransition(current.state, 'be canceled');
  // Compare-and-set on the state read, so a concurrent cancel or expiry is judged on the state it left.
  const updated = await db('subscriptions')
    .where({ id: subscriptionId, site_id: siteId, version: current.version })
    .update({ state: 'canceled', canceled_at: now, version: db.raw('version + 1'), updated_at: now });
  if (updated !== 1) return cancelSubscription(db, siteId, subscriptionId, now);
  return requireSubscription(db, siteId, subscriptionId);
}
