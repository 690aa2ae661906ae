import type { components } from '../../../../generated/admin-api.js';
import type { Subscription } from '../../../people/subscriptions.js';

export type SubscriptionRepresentation = components['schemas']['Subscription'];

export function subscriptionRepresentation(subscription: Subscription): SubscriptionRepresentation {
  return {
    id: subscription.id,
    userId: subscription.userId,
    planId: subscription.planId,
    state: subscription.state,
    startedAt: subscription.startedAt.toISOString(),
    currentPeriodStart: subscription.currentPeriodStart.toISOString(),
    currentPeriodEnd: subscription.currentPeriodEnd.toISOString(),
    canceledAt: subscription.canceledAt?.toISOString() ?? null,
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
  };
}
