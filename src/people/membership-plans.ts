import { requireDate, type Database } from '../db/connection.js';
import { listPage, type ListQuery, type SortColumns } from '../db/keyset-pagination.js';
import { updateVersionedRow } from '../db/versioned-rows.js';
import { ConflictError, NotFoundError, ValidationError, type FieldProblem } from '../shared/errors.js';
import { priceProblems, type Money } from '../shared/money.js';
import { withTransaction } from '../db/transaction.js';

/** Membership plans of a site (docs/admin-people.md, Membership plans): a price per month or year, open or closed. */

export type BillingInterval = 'month' | 'year';

export interface MembershipPlan {
  id: number;
  name: string;
  description: string | null;
  price: Money;
  billingInterval: BillingInterval;
  active: boolean;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

interface PlanRow {
  id: number;
  name: string;
  description: string | null;
  price_amount: number | string;
  price_currency: string;
  billing_interval: string;
  active: number | boolean;
  version: number;
  created_at: unknown;
  updated_at: unknown;
}

function planFromRow(row: PlanRow): MembershipPlan {
  return {
    id: Number(row.id),
    name: row.name,
    description: row.description,
    price: { amount: Number(row.price_amount), currency: row.price_currency },
    billingInterval: row.billing_interval === 'year' ? 'year' : 'month',
    active: Boolean(row.active),
    version: Number(row.version),
    createdAt: requireDate(row.created_at),
    updatedAt: requireDate(row.updated_at),
  };
}

const PLAN_SORTS: SortColumns<'createdAt' | 'updatedAt' | 'name'> = {
  createdAt: { column: 'created_at', type: 'time' },
  updatedAt: { column: 'updated_at', type: 'time' },
  name: { column: 'name', type: 'string' },
};

export interface PlanFilters {
  active?: boolean | undefined;
  billingInterval?: BillingInterval | undefined;
}

export async function listPlans(db: Database, siteId: number, filters: PlanFilters, query: ListQuery): Promise<{ plans: MembershipPlan[]; nextCursor: string | null }> {
  const builder = db('membership_plans').where({ site_id: siteId });
  if (filters.active !== undefined) builder.andWhere('active', filters.active);
  if (filters.billingInterval !== undefined) builder.andWhere('billing_interval', filters.billingInterval);
  const page = await listPage<PlanRow, keyof typeof PLAN_SORTS>(builder, query, { sorts: PLAN_SORTS, defaultSort: '-createdAt', filters: { ...filters } });
  return { plans: page.rows.map(planFromRow), nextCursor: page.nextCursor };
}

export async function requirePlan(db: Database, siteId: number, planId: number): Promise<MembershipPlan> {
  const row = (await db('membership_plans').where({ id: planId, site_id: siteId }).first()) as PlanRow | undefined;
  if (!row) throw new NotFoundError(`This site has no membership plan ${planId}.`);
  return planFromRow(row);
}

function checkName(name: string, problems: FieldProblem[]): string {
  if (name.trim() === '') problems.push({ pointer: '/name', message: 'must not be blank' });
  return name.trim();
}

export interface NewPlan {
  name: string;
  description?: string | null | undefined;
  price: Money;
  billingInterval: BillingInterval;
  active?: boolean | undefined;
}

export async function createPlan(db: Database, siteId: number, input: NewPlan): Promise<MembershipPlan> {
  const problems: FieldProblem[] = [];
  const name = checkName(input.name, problems);
  problems.push(...priceProblems(input.price, '/price'));
  if (problems.length > 0) throw new ValidationError('The membership plan is not valid.', problems);
  const now = new Date();
  const [id] = await db('membership_plans').insert({
    site_id: siteId,
    name,
    description: input.description ?? null,
    price_amount: input.price.amount,
    price_currency: input.price.currency,
    billing_interval: input.billingInterval,
    active: input.active ?? true,
    version: 1,
    created_at: now,
    updated_at: now,
  });
  return requirePlan(db, siteId, Number(id));
}

export interface PlanChanges {
  name?: string | undefined;
  description?: string | null | undefined;
  price?: Money | undefined;
  billingInterval?: BillingInterval | undefined;
  active?: boolean | undefined;
}

export async function updatePlan(db: Database, siteId: number, planId: number, changes: PlanChanges, expectedVersion: number): Promise<MembershipPlan> {
  const problems: FieldProblem[] = [];
  const columns: Record<string, unknown> = {};
  if (changes.name !== undefined) columns.name = checkName(changes.name, problems);
  if (changes.description !== undefined) columns.description = changes.description;
  if (changes.price !== undefined) {
    problems.push(...priceProblems(changes.price, '/price'));
    Object.assign(columns, { price_amount: changes.price.amount, price_currency: changes.price.currency });
  }
  if (changes.billingInterval !== undefined) columns.billing_interval = changes.billingInterval;
  if (changes.active !== undefined) columns.active = changes.active;
  if (problems.length > 0) throw new ValidationError('The membership plan is not valid.', problems);
  await updateVersionedRow(db, 'membership_plans', { id: planId, site_id: siteId }, expectedVersion, columns, { what: 'membership plan', notFound: `This site has no membership plan ${planId}.` });
  return requirePlan(db, siteId, planId);
}

/** Deletes a plan nobody ever subscribed to; subscriptions are billing history, so a plan with any is only deactivated. */
export async function deletePlan(db: Database, siteId: number, planId: number): Promise<void> {
  await withTransaction(db, async (trx) => {
    const plan = await trx('membership_plans').where({ id: planId, site_id: siteId }).first('id');
    if (!plan) throw new NotFoundError(`This site has no membership plan ${planId}.`);
    if (await trx('subscriptions').where({ plan_id: planId }).first('id')) {
      throw new ConflictError('The plan has subscriptions (billing history) and cannot be deleted. Deactivate it instead (active: false): it stays for its subscribers and closes to new ones.', 'plan_has_subscriptions');
    }
    await trx('membership_plans').where({ id: planId, site_id: siteId }).delete();
  });
}
