import { expect } from 'chai';
import { describeEachDatabase } from './support/databases.js';
import { MIA, BULK, EDGE, EDGE_ROOM, errorCodes, useVariantASchool } from './support/member-variant-a.js';

/**
 * Variant A's viewer.consultingMeetings over HTTP (spec: "Consulting", "Meeting state"): windows, filters, ordering,
 * paging and who sees which meeting. Data: the demo school (Mia, docs/demo.md) plus an import document with edge cases
 * and bulk rows.
 */
describeEachDatabase('member GraphQL variant A: meetings, payments, notifications', (scratch) => {
  const school = useVariantASchool(scratch);

  describe('viewer.consultingMeetings', () => {
    it("lists the viewer's own seats and every meeting of the viewer's study group, canceled ones included, and nobody else's", async () => {
      const page = await school.meetingsOf(MIA);
      const expected = await Promise.all(
        ['mtg-pr-001', 'mtg-pr-003', 'mtg-oh-002', 'mtg-oh-live', 'mtg-oh-003', 'mtg-oh-005', 'grp-typo-past-3', 'grp-typo-past-2', 'grp-typo-past-1', 'grp-typo-next-0', 'grp-typo-next-1'].map((id) => school.meetingId(id)),
      );
      expect(page.nodes.map((node) => node.id)).to.have.members(expected);
      expect(page.totalCount).to.equal(11);
      for (const others of ['mtg-pr-002', 'mtg-pr-004', 'mtg-pr-005', 'mtg-pr-006', 'mtg-oh-001', 'mtg-oh-004']) {
        expect(page.nodes.map((node) => node.id)).not.to.include(await school.meetingId(others));
      }
      expect(page.nodes.map((node) => node.id), "Mia's seat at site B").not.to.include(await school.meetingId('b-mtg', 'ConsultingMeeting', school.server.siteB.id));
      const canceled = page.nodes.filter((node) => node.state === 'canceled');
      expect(canceled.map((node) => node.id)).to.have.members([await school.meetingId('mtg-oh-003'), await school.meetingId('grp-typo-past-3')]);
      const kinds = page.nodes.map((node) => node.kind);
      expect(kinds.filter((kind) => kind === 'STUDY_GROUP')).to.have.length(5);
      for (const node of page.nodes) {
        if (node.kind === 'STUDY_GROUP') {
          expect(node.studyGroup?.name).to.equal('Typography Critique Circle');
          expect(node.service).to.equal(null);
          expect(node.attendeesCount, 'roster size').to.equal(3);
          expect(node.state).to.be.oneOf(['available', 'canceled']);
        } else {
          expect(node.studyGroup).to.equal(null);
          expect(node.service?.title).to.be.oneOf(['Portfolio Review 1:1', 'Design Systems Office Hours']);
        }
      }
      const live = page.nodes.find((node) => node.id === expected[3]);
      expect(live?.attendeesCount, 'three seats on the live office hours').to.equal(3);
      const twoSeats = page.nodes.find((node) => node.id === expected[2]);
      expect(twoSeats?.attendeesCount).to.equal(2);
    });

    it('never lists a meeting whose seat the viewer canceled, nor another member’s seat; canceled seats are not counted', async () => {
      const page = await school.meetingsOf(EDGE);
      const ids = page.nodes.map((node) => node.id);
      expect(ids).to.have.members(await Promise.all(['x-edge-live', 'x-edge-live-canceled', 'x-edge-ended', 'x-edge-future'].map((id) => school.meetingId(id))));
      const live = page.nodes.find((node) => node.roomUrl !== '');
      expect(live?.attendeesCount, 'EDGE and OTHER; THIRD canceled').to.equal(2);
    });

    it('gives ConsultingMeeting ids that differ from the ServiceMeeting ids of the same meetings', async () => {
      const page = await school.meetingsOf(MIA);
      const serviceIds = await Promise.all(['mtg-pr-001', 'mtg-oh-live'].map((id) => school.meetingId(id, 'ServiceMeeting')));
      for (const id of serviceIds) expect(page.nodes.map((node) => node.id)).not.to.include(id);
      expect(new Set(page.nodes.map((node) => node.id)).size).to.equal(page.nodes.length);
    });

    it('orders newest start first (ties by id) and pages consistently in both directions', async () => {
      const page = await school.meetingsOf(MIA);
      const starts = page.nodes.map((node) => node.startedAt);
      expect(starts).to.deep.equal([...starts].sort((a, b) => b - a));
      for (const node of page.nodes) expect(Date.parse(node.startAt) / 1000).to.equal(node.startedAt);
      const first = await school.meetingsOf(MIA, 'first: 4');
      expect(first.nodes.map((node) => node.id)).to.deep.equal(page.nodes.slice(0, 4).map((node) => node.id));
      expect(first.pageInfo.hasNextPage).to.equal(true);
      expect(first.pageInfo.hasPreviousPage).to.equal(false);
      const second = await school.meetingsOf(MIA, `first: 4, after: "${first.pageInfo.endCursor}"`);
      expect(second.nodes.map((node) => node.id)).to.deep.equal(page.nodes.slice(4, 8).map((node) => node.id));
      expect(second.pageInfo.hasPreviousPage).to.equal(true);
      const back = await school.meetingsOf(MIA, `last: 4, before: "${second.pageInfo.startCursor}"`);
      expect(back.nodes.map((node) => node.id)).to.deep.equal(first.nodes.map((node) => node.id));
    });

    it('takes the next upcoming meeting with last: 1 over a startedAfter: now window', async () => {
      const all = await school.meetingsOf(MIA);
      const nowSeconds = Math.floor(Date.now() / 1000);
      const upcoming = all.nodes.filter((node) => node.startedAt > nowSeconds);
      const next = upcoming[upcoming.length - 1];
      expect(next, 'Mia has upcoming meetings').to.not.equal(undefined);
      const page = await school.meetingsOf(MIA, `last: 1, filter: { startedAfter: ${nowSeconds} }`);
      expect(page.nodes.map((node) => node.id)).to.deep.equal([next!.id]);
      expect(page.totalCount).to.equal(upcoming.length);
      expect(page.pageInfo.hasPreviousPage).to.equal(upcoming.length > 1);
      // The upcoming schedule without canceled meetings (docs/member-graphql.md).
      const scheduled = upcoming.filter((node) => node.state !== 'canceled');
      const nextLive = await school.meetingsOf(MIA, `last: 1, filter: { startedAfter: ${nowSeconds}, state: [available, scheduled] }`);
      expect(nextLive.nodes.map((node) => node.id)).to.deep.equal([scheduled[scheduled.length - 1]!.id]);
    });

    it('lists history with startedBefore, and filters by state', async () => {
      const all = await school.meetingsOf(MIA);
      const nowSeconds = Math.floor(Date.now() / 1000);
      const history = await school.meetingsOf(MIA, `first: 50, filter: { startedBefore: ${nowSeconds} }`);
      expect(history.nodes.map((node) => node.id)).to.deep.equal(all.nodes.filter((node) => node.startedAt < nowSeconds).map((node) => node.id));
      expect(history.nodes.some((node) => node.roomUrl !== ''), 'the live meeting started before now').to.equal(true);
      const canceled = await school.meetingsOf(MIA, 'first: 50, filter: { state: [canceled] }');
      expect(canceled.nodes.map((node) => node.state)).to.deep.equal(['canceled', 'canceled']);
      const scheduled = await school.meetingsOf(MIA, 'first: 50, filter: { state: [scheduled] }');
      expect(scheduled.nodes.map((node) => node.id)).to.have.members(await Promise.all(['mtg-pr-001', 'mtg-oh-002', 'mtg-oh-live'].map((id) => school.meetingId(id))));
      const none = await school.meetingsOf(MIA, 'first: 50, filter: { state: [] }');
      expect(none.nodes).to.deep.equal([]);
      expect(none.totalCount).to.equal(0);
      const window = await school.meetingsOf(MIA, `first: 50, filter: { startedAfter: ${nowSeconds - 8 * 86400}, startedBefore: ${nowSeconds + 8 * 86400} }`);
      expect(window.nodes.map((node) => node.id)).to.deep.equal(all.nodes.filter((node) => node.startedAt > nowSeconds - 8 * 86400 && node.startedAt < nowSeconds + 8 * 86400).map((node) => node.id));
    });

    it('refuses startedAfter later than startedBefore with BAD_USER_INPUT, and unknown states by enum validation', async () => {
      const inverted = await school.ask(MIA, '{ viewer { consultingMeetings(filter: { startedAfter: 2000, startedBefore: 1000 }) { totalCount } } }');
      expect(errorCodes(inverted)).to.deep.equal(['BAD_USER_INPUT']);
      expect(inverted.errors?.[0]?.message).to.match(/startedAfter/);
      const unknown = await school.ask(MIA, '{ viewer { consultingMeetings(filter: { state: [confirmed] }) { totalCount } } }');
      expect(unknown.errors?.length).to.be.greaterThan(0);
      expect(unknown.data ?? null).to.equal(null);
      const badCursor = await school.ask(MIA, '{ viewer { consultingMeetings(after: "nonsense") { totalCount } } }');
      expect(errorCodes(badCursor)).to.deep.equal(['BAD_USER_INPUT']);
      const negative = await school.ask(MIA, '{ viewer { consultingMeetings(first: -1) { totalCount } } }');
      expect(errorCodes(negative)).to.deep.equal(['BAD_USER_INPUT']);
    });

    it('gives roomUrl only while the meeting is live: not before, not after, not when canceled', async () => {
      const page = await school.meetingsOf(EDGE);
      const byId = new Map(page.nodes.map((node) => [node.id, node]));
      expect(byId.get(await school.meetingId('x-edge-live'))?.roomUrl).to.equal(EDGE_ROOM);
      expect(byId.get(await school.meetingId('x-edge-live-canceled'))?.roomUrl, 'canceled').to.equal('');
      expect(byId.get(await school.meetingId('x-edge-ended'))?.roomUrl, 'ended').to.equal('');
      expect(byId.get(await school.meetingId('x-edge-future'))?.roomUrl, 'not started').to.equal('');
      const asked = Date.now();
      const mia = await school.meetingsOf(MIA);
      const answered = Date.now();
      expect(mia.nodes.find((node) => node.roomUrl !== '' && node.roomUrl.endsWith('/oh-live')), 'the live office hours').to.not.equal(undefined);
      // The demo is relative to its seeding time, so a weekly meeting may happen to be live too: check every one by its times.
      for (const node of mia.nodes) {
        const start = Date.parse(node.startAt);
        const end = Date.parse(node.endAt);
        if (node.state === 'canceled' || end <= asked || start > answered) expect(node.roomUrl, node.id).to.equal('');
        else if (start <= asked && answered < end) expect(node.roomUrl, node.id).to.not.equal('');
      }
    });

    it('clamps pages to 50 (60 meetings) and pages on to the rest', async () => {
      const page = await school.meetingsOf(BULK, 'first: 100');
      expect(page.nodes).to.have.length(50);
      expect(page.totalCount).to.equal(60);
      expect(page.pageInfo.hasNextPage).to.equal(true);
      const rest = await school.meetingsOf(BULK, `first: 50, after: "${page.pageInfo.endCursor}"`);
      expect(rest.nodes).to.have.length(10);
      expect(rest.pageInfo.hasNextPage).to.equal(false);
      expect(new Set([...page.nodes, ...rest.nodes].map((node) => node.id)).size).to.equal(60);
      const last = await school.meetingsOf(BULK, 'last: 60');
      expect(last.nodes).to.have.length(50);
      expect(last.pageInfo.hasPreviousPage).to.equal(true);
      const defaults = await school.meetingsOf(BULK, '');
      expect(defaults.nodes).to.have.length(20);
    });
  });
});
