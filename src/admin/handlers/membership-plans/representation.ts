import type { components } from '../../../../generated/admin-api.js';
import type { MembershipPlan } from '../../../people/membership-plans.js';

export type MembershipPlanRepresentation = components['schemas']['MembershipPlan'];

export function planRepresentation(plan: MembershipPlan): MembershipPlanRepresentation {
  return {
    id: plan.id,
    name: plan.name,
    description: plan.description,
    price: { amount: plan.price.amount, currency: plan.price.currency },
    billingInterval: plan.billingInterval,
    active: plan.active,
    createdAt: plan.createdAt.toISOString(),
    updatedAt: plan.updatedAt.toISOString(),
  };
}
