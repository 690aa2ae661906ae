import { expect } from 'chai';
import { type AdminApi, issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';

type Plan = Schemas['MembershipPlan'];
type PlanList = Schemas['MembershipPlanList'];
type Subscription = Schemas['Subscription'];
type SubscriptionList = Schemas['SubscriptionList'];

const SCOPES = ['membership_plans:read', 'membership_plans:write', 'subscriptions:read', 'subscriptions:write'];
const DAY = 86400000;
const at = (days: number): string => new Date(Date.UTC(2031, 0, 1) + days * DAY).toISOString();

describeEachDatabase('admin API: membership plans and subscriptions', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: SCOPES });

  async function createPlan(body: Record<string, unknown>, client: AdminApi = admin.api): Promise<{ plan: Plan; etag: string }> {
    const answer = await client.call<Plan>('createMembershipPlan', { body: { price: { amount: 900, currency: 'USD' }, billingInterval: 'month', ...body } });
    expect(answer.status, answer.text).to.equal(201);
    return { plan: answer.body, etag: answer.headers.get('etag') ?? '' };
  }

  async function member(): Promise<number> {
    return (await makeUser(scratch().db, admin.server.siteA, ['student'], 'Subscriber')).id;
  }

  async function subscribe(body: Record<string, unknown>): Promise<{ subscription: Subscription; etag: string }> {
    const answer = await admin.api.call<Subscription>('createSubscription', { body: { currentPeriodStart: at(0), currentPeriodEnd: at(30), ...body } });
    expect(answer.status, answer.text).to.equal(201);
    return { subscription: answer.body, etag: answer.headers.get('etag') ?? '' };
  }

  describe('membership plans', () => {
    it('creates, reads, updates (merge patch, If-Match) and deletes a plan', async () => {
      const created = await admin.api.call<Plan>('createMembershipPlan', { body: { name: 'Gold', description: 'All courses', price: { amount: 4900, currency: 'USD' }, billingInterval: 'year' } });
      expect(created.status, created.text).to.equal(201);
      expect(created.body).to.include({ name: 'Gold', description: 'All courses', billingInterval: 'year', active: true });
      expect(created.body.price).to.deep.equal({ amount: 4900, currency: 'USD' });
      expect(created.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/membership-plans/${created.body.id}`);
      const path = { planId: String(created.body.id) };
      const read = await admin.api.call<Plan>('getMembershipPlan', { path });
      expect(read.body).to.deep.equal(created.body);
      expect(read.headers.get('etag')).to.equal('"v1"');
      expect((await admin.api.call('updateMembershipPlan', { path, body: { name: 'x' } })).status).to.equal(428);
      const updated = await admin.api.call<Plan>('updateMembershipPlan', { path, headers: { 'if-match': '"v1"' }, body: { description: null, price: { amount: 5900, currency: 'EUR' } }, contentType: 'application/merge-patch+json' });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body).to.include({ name: 'Gold', description: null });
      expect(updated.body.price).to.deep.equal({ amount: 5900, currency: 'EUR' });
      expect(updated.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updateMembershipPlan', { path, headers: { 'if-match': '"v1"' }, body: { active: false } })).status).to.equal(412);
      expect((await admin.apiB.call('getMembershipPlan', { path })).status).to.equal(404);
      expect((await admin.apiB.call('deleteMembershipPlan', { path })).status).to.equal(404);
      expect((await admin.api.call('deleteMembershipPlan', { path })).status).to.equal(204);
      expect((await admin.api.call('getMembershipPlan', { path })).status).to.equal(404);
    });

    it('refuses negative prices, unknown currencies and unknown members with pointers', async () => {
      const answer = await admin.api.call('createMembershipPlan', { body: { name: ' ', price: { amount: -1, currency: 'XYZ' }, billingInterval: 'month' } });
      expect(answer.status).to.equal(400);
      expect((answer.problem.errors ?? []).map((error) => error.pointer)).to.have.members(['/name', '/price/amount', '/price/currency']);
      const schema = await admin.api.call('createMembershipPlan', { body: { name: 'A', price: { amount: 1.5, currency: 'usd' }, billingInterval: 'week', trial: true } });
      expect((schema.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/price/amount', '/price/currency', '/billingInterval', '/trial']);
    });

    it('refuses to delete a plan with subscriptions (409 plan_has_subscriptions); deactivating works', async () => {
      const { plan, etag } = await createPlan({ name: 'Kept' });
      await subscribe({ userId: await member(), planId: plan.id });
      const path = { planId: String(plan.id) };
      const refused = await admin.api.call('deleteMembershipPlan', { path });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('plan_has_subscriptions');
      expect(refused.problem.detail).to.match(/[Dd]eactivate/);
      const deactivated = await admin.api.call<Plan>('updateMembershipPlan', { path, headers: { 'if-match': etag }, body: { active: false } });
      expect(deactivated.body.active).to.equal(false);
      const closed = await admin.api.call('createSubscription', { body: { userId: await member(), planId: plan.id, currentPeriodStart: at(0), currentPeriodEnd: at(30) } });
      expect(closed.status).to.equal(400);
      expect((closed.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/planId']);
    });

    it('lists with filters and sorts, page by page, and needs the plan scopes', async () => {
      for (const [index, name] of ['Pm-b', 'Pm-a', 'Pm-c', 'Pm-d'].entries()) await createPlan({ name, billingInterval: index < 2 ? 'year' : 'month', active: index !== 3 });
      await createPlan({ name: 'Other site' }, admin.apiB);
      const all = (await admin.api.call<PlanList>('listMembershipPlans', { query: { limit: 100 } })).body.data;
      expect(all.map((plan) => plan.name)).to.not.include('Other site');
      const paged: number[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: PlanList } = await admin.api.call<PlanList>('listMembershipPlans', { query: { limit: 2, ...(cursor ? { cursor } : {}) } });
        paged.push(...page.body.data.map((plan) => plan.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(paged).to.deep.equal(all.map((plan) => plan.id));
      const yearly = await admin.api.call<PlanList>('listMembershipPlans', { query: { billingInterval: 'year', limit: 100 } });
      expect(yearly.body.data.length).to.be.greaterThan(1);
      for (const plan of yearly.body.data) expect(plan.billingInterval).to.equal('year');
      const inactive = await admin.api.call<PlanList>('listMembershipPlans', { query: { active: false, limit: 100 } });
      expect(inactive.body.data.map((plan) => plan.name)).to.include('Pm-d');
      for (const plan of inactive.body.data) expect(plan.active).to.equal(false);
      const byName = await admin.api.call<PlanList>('listMembershipPlans', { query: { sort: 'name', limit: 100 } });
      const names = byName.body.data.map((plan) => plan.name).filter((name) => name.startsWith('Pm-'));
      expect(names).to.deep.equal(['Pm-a', 'Pm-b', 'Pm-c', 'Pm-d']);
      expect((await admin.api.call('listMembershipPlans', { query: { cursor: 'bogus' } })).problem.code).to.equal('invalid_cursor');
      const noScope = await issueToken(scratch().db, admin.server.siteA, { scopes: ['subscriptions:read'] });
      const denied = await admin.api.withToken(noScope.token).call('listMembershipPlans');
      expect(denied.status).to.equal(403);
      expect(denied.headers.get('www-authenticate')).to.contain('scope="membership_plans:read"');
    });
  });

  describe('subscriptions', () => {
    let plan: Plan;
    before(async () => {
      plan = (await createPlan({ name: 'Silver' })).plan;
    });

    it('grants a plan (active by default) with Location and ETag; refuses bad references and periods', async () => {
      const userId = await member();
      const answer = await admin.api.call<Subscription>('createSubscription', { body: { userId, planId: plan.id, currentPeriodStart: at(0), currentPeriodEnd: at(30) } });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.include({ userId, planId: plan.id, state: 'active', startedAt: at(0), currentPeriodStart: at(0), currentPeriodEnd: at(30), canceledAt: null });
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/subscriptions/${answer.body.id}`);
      expect(answer.headers.get('etag')).to.equal('"v1"');
      const read = await admin.api.call<Subscription>('getSubscription', { path: { subscriptionId: String(answer.body.id) } });
      expect(read.body).to.deep.equal(answer.body);
      const twice = await admin.api.call('createSubscription', { body: { userId, planId: plan.id, currentPeriodStart: at(0), currentPeriodEnd: at(30) } });
      expect(twice.status).to.equal(409);
      expect(twice.problem.code).to.equal('already_subscribed');
      const backwards = await admin.api.call('createSubscription', { body: { userId: await member(), planId: plan.id, currentPeriodStart: at(30), currentPeriodEnd: at(0) } });
      expect((backwards.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/currentPeriodEnd']);
      const otherSitePlan = (await createPlan({ name: 'B plan' }, admin.apiB)).plan;
      const foreign = await admin.api.call('createSubscription', { body: { userId: await member(), planId: otherSitePlan.id, currentPeriodStart: at(0), currentPeriodEnd: at(30) } });
      expect((foreign.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/planId']);
      const outsider = await makeUser(scratch().db, admin.server.siteB, ['student'], 'Outsider');
      const nonMember = await admin.api.call('createSubscription', { body: { userId: outsider.id, planId: plan.id, currentPeriodStart: at(0), currentPeriodEnd: at(30) } });
      expect((nonMember.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/userId']);
      const badState = await admin.api.call('createSubscription', { body: { userId: await member(), planId: plan.id, state: 'canceled', currentPeriodStart: at(0), currentPeriodEnd: at(30) } });
      expect((badState.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/state']);
    });

    it('moves along the allowed transitions by merge patch and renews the period (If-Match)', async () => {
      const { subscription, etag } = await subscribe({ userId: await member(), planId: plan.id, state: 'trialing' });
      const path = { subscriptionId: String(subscription.id) };
      expect((await admin.api.call('updateSubscription', { path, body: { state: 'active' } })).status).to.equal(428);
      const active = await admin.api.call<Subscription>('updateSubscription', { path, headers: { 'if-match': etag }, body: { state: 'active' } });
      expect(active.status, active.text).to.equal(200);
      expect(active.body.state).to.equal('active');
      expect((await admin.api.call('updateSubscription', { path, headers: { 'if-match': etag }, body: { state: 'past_due' } })).status).to.equal(412);
      const pastDue = await admin.api.call<Subscription>('updateSubscription', { path, headers: { 'if-match': '"v2"' }, body: { state: 'past_due' } });
      expect(pastDue.body.state).to.equal('past_due');
      const renewed = await admin.api.call<Subscription>('updateSubscription', { path, headers: { 'if-match': '"v3"' }, body: { state: 'active', currentPeriodStart: at(30), currentPeriodEnd: at(60) } });
      expect(renewed.body).to.include({ state: 'active', currentPeriodStart: at(30), currentPeriodEnd: at(60), startedAt: at(0) });
      const inverted = await admin.api.call('updateSubscription', { path, headers: { 'if-match': '"v4"' }, body: { currentPeriodEnd: at(10) } });
      expect((inverted.problem.errors ?? []).map((error) => error.pointer)).to.deep.equal(['/currentPeriodEnd']);
      const viaPatch = await admin.api.call('updateSubscription', { path, headers: { 'if-match': '"v4"' }, body: { state: 'canceled' } });
      expect(viaPatch.status).to.equal(400);
      const expired = await admin.api.call<Subscription>('updateSubscription', { path, headers: { 'if-match': '"v4"' }, body: { state: 'expired' } });
      expect(expired.body.state).to.equal('expired');
      const revive = await admin.api.call('updateSubscription', { path, headers: { 'if-match': '"v5"' }, body: { state: 'active' } });
      expect(revive.status).to.equal(409);
      expect(revive.problem.code).to.equal('invalid_state_transition');
      expect(revive.problem.detail).to.contain('expired');
      const period = await admin.api.call('updateSubscription', { path, headers: { 'if-match': '"v5"' }, body: { currentPeriodEnd: at(90) } });
      expect(period.problem.code).to.equal('invalid_state_transition');
      const trialAgain = await subscribe({ userId: await member(), planId: plan.id });
      const backToTrial = await admin.api.call('updateSubscription', { path: { subscriptionId: String(trialAgain.subscription.id) }, headers: { 'if-match': trialAgain.etag }, body: { state: 'trialing' } });
      expect(backToTrial.status).to.equal(400);
    });

    it('cancels a live subscription once; canceling again names the state (409 invalid_state_transition)', async () => {
      const { subscription } = await subscribe({ userId: await member(), planId: plan.id });
      const path = { subscriptionId: String(subscription.id) };
      expect((await admin.apiB.call('cancelSubscription', { path })).status).to.equal(404);
      const canceled = await admin.api.call<Subscription>('cancelSubscription', { path });
      expect(canceled.status, canceled.text).to.equal(200);
      expect(canceled.body.state).to.equal('canceled');
      expect(canceled.body.canceledAt).to.be.a('string');
      expect(canceled.headers.get('etag')).to.equal('"v2"');
      const again = await admin.api.call('cancelSubscription', { path });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('invalid_state_transition');
      expect(again.problem.detail).to.contain('canceled');
      const body = await admin.api.call('cancelSubscription', { path, body: { reason: 'x' } });
      expect(body.status).to.equal(400);
      const patch = await admin.api.call('updateSubscription', { path, headers: { 'if-match': '"v2"' }, body: { state: 'active' } });
      expect(patch.problem.code).to.equal('invalid_state_transition');
    });

    it('lists with state, plan and member filters, sorts by period end and pages; hidden from site B', async () => {
      const userId = await member();
      const other = (await createPlan({ name: 'Bronze' })).plan;
      const early = await subscribe({ userId, planId: plan.id, currentPeriodEnd: at(5) });
      const late = await subscribe({ userId, planId: other.id, state: 'trialing', currentPeriodEnd: at(50) });
      const mine = await admin.api.call<SubscriptionList>('listSubscriptions', { query: { userId } });
      expect(mine.body.data.map((row) => row.id)).to.deep.equal([late.subscription.id, early.subscription.id]);
      const byEnd = await admin.api.call<SubscriptionList>('listSubscriptions', { query: { userId, sort: 'currentPeriodEnd' } });
      expect(byEnd.body.data.map((row) => row.id)).to.deep.equal([early.subscription.id, late.subscription.id]);
      const trialing = await admin.api.call<SubscriptionList>('listSubscriptions', { query: { userId, state: 'trialing' } });
      expect(trialing.body.data.map((row) => row.id)).to.deep.equal([late.subscription.id]);
      const onPlan = await admin.api.call<SubscriptionList>('listSubscriptions', { query: { planId: other.id } });
      expect(onPlan.body.data.map((row) => row.id)).to.deep.equal([late.subscription.id]);
      const started = await admin.api.call<SubscriptionList>('listSubscriptions', { query: { sort: '-startedAt', limit: 100 } });
      const all = started.body.data.map((row) => row.id);
      const paged: number[] = [];
      let cursor: string | null = null;
      do {
        const page: { body: SubscriptionList } = await admin.api.call<SubscriptionList>('listSubscriptions', { query: { sort: '-startedAt', limit: 2, ...(cursor ? { cursor } : {}) } });
        paged.push(...page.body.data.map((row) => row.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(paged).to.deep.equal(all);
      expect(all.length).to.be.greaterThan(2);
      expect((await admin.apiB.call<SubscriptionList>('listSubscriptions', { query: { userId } })).body.data).to.deep.equal([]);
      expect((await admin.apiB.call('getSubscription', { path: { subscriptionId: String(early.subscription.id) } })).status).to.equal(404);
      const readOnly = await issueToken(scratch().db, admin.server.siteA, { scopes: ['subscriptions:read'] });
      const denied = await admin.api.withToken(readOnly.token).call('cancelSubscription', { path: { subscriptionId: String(early.subscription.id) } });
      expect(denied.status).to.equal(403);
      expect(denied.headers.get('www-authenticate')).to.contain('scope="subscriptions:write"');
    });
  });
});
