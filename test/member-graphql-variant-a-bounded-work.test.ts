import { expect } from 'chai';
import { describeEachDatabase } from './support/databases.js';
import { SMALL, BULK, MEETING_FIELDS, NOTIFICATION_FIELDS, expectNoErrors, useVariantASchool } from './support/member-variant-a.js';

/**
 * Variant A's member fields over HTTP do bounded work (spec: "Limits"): the same number of SQL queries whatever the
 * number of rows. Data: the demo school (Mia, docs/demo.md) plus an import document with edge cases and bulk rows.
 */
describeEachDatabase('member GraphQL variant A: meetings, payments, notifications', (scratch) => {
  const school = useVariantASchool(scratch);

  describe('bounded work', () => {
    // Every batched field once (every loader), with few scalars to stay under the endpoint's cost limit.
    const FULL = `{ viewer {
      consultingMeetings(first: 50) { nodes { ${MEETING_FIELDS} } totalCount }
      payments(first: 50) { nodes { tradeNo paymentState adjustments { amount } invoice { status } lineitems { productId } } totalCount }
      notifications(first: 50) { nodes { ${NOTIFICATION_FIELDS} } totalCount }
      unreadNotificationCount
      notificationSubscriptions { kind channel enabled }
    } }`;

    async function queriesFor(email: string): Promise<number> {
      await school.ask(email, FULL); // the first use of a token may record it; measure a later request
      let count = 0;
      const listener = () => {
        count += 1;
      };
      school.db.on('query', listener);
      try {
        const result = await school.ask<{ viewer: { consultingMeetings: { nodes: unknown[] }; payments: { nodes: unknown[] } } }>(email, FULL);
        expectNoErrors(result);
      } finally {
        school.db.removeListener('query', listener);
      }
      return count;
    }

    it('costs the same number of SQL queries for 3 as for 60 meetings and payments', async () => {
      const small = await queriesFor(SMALL);
      const bulk = await queriesFor(BULK);
      expect(bulk).to.equal(small);
      expect(small).to.be.lessThan(30);
      expect(small).to.be.greaterThan(5);
    });
  });
});
