import { expect } from 'chai';
import type { User } from '../src/accounts/users.js';
import { issueToken, type AdminResult, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';

/**
 * Admin API, scheduling area: events and their registrations (docs/admin-scheduling.md). Every call goes through
 * AdminApi.call, so every answer is also checked against the served contract.
 */

type Event = Schemas['Event'];
type EventList = Schemas['EventList'];
type Registration = Schemas['EventRegistration'];
type RegistrationList = Schemas['EventRegistrationList'];

const EVENTS_SCOPES = ['events:read', 'events:write'];
const HOUR = 3_600_000;
const BASE = Date.parse('2031-03-01T09:00:00.000Z');

function at(hours: number): string {
  return new Date(BASE + hours * HOUR).toISOString();
}

describeEachDatabase('admin API: events and registrations', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: EVENTS_SCOPES });
  let slugCounter = 0;

  function nextSlug(prefix = 'event'): string {
    slugCounter += 1;
    return `${prefix}-${slugCounter}`;
  }

  async function createEvent(overrides: Record<string, unknown> = {}): Promise<AdminResult<Event>> {
    const answer = await admin.api.call<Event>('createEvent', {
      body: { slug: nextSlug(), title: 'Spring webinar', startsAt: at(0), endsAt: at(2), format: 'online', ...overrides },
    });
    expect(answer.status, answer.text).to.equal(201);
    return answer;
  }

  async function member(name = 'Mia Member'): Promise<User> {
    return makeUser(scratch().db, admin.server.siteA, ['student'], name);
  }

  async function register(eventId: number, userId: number): Promise<AdminResult<Registration>> {
    return admin.api.call<Registration>('createEventRegistration', { path: { eventId: String(eventId) }, body: { userId } });
  }

  describe('events', () => {
    it('creates an event (draft by default, time zone canonicalised) with ETag and Location, and reads it back', async () => {
      const answer = await createEvent({
        title: '  Open day  ',
        timezone: 'asia/taipei',
        format: 'venue',
        location: 'Main hall, 1 School Road',
        capacity: 30,
        price: { amount: 1500, currency: 'TWD' },
        description: 'Meet the lecturers.',
      });
      const event = answer.body;
      expect(event).to.include({
        title: 'Open day',
        timezone: 'Asia/Taipei',
        format: 'venue',
        location: 'Main hall, 1 School Road',
        onlineUrl: null,
        capacity: 30,
        status: 'draft',
        isPublic: true,
        registeredCount: 0,
        description: 'Meet the lecturers.',
        startsAt: at(0),
        endsAt: at(2),
      });
      expect(event.price).to.deep.equal({ amount: 1500, currency: 'TWD' });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.origin}/api/admin/v1/events/${event.id}`);
      const read = await admin.api.call<Event>('getEvent', { path: { eventId: String(event.id) } });
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal(event);
      expect(read.headers.get('etag')).to.equal('"v1"');
    });

    it("uses the school's time zone when none is given", async () => {
      const { body } = await createEvent();
      expect(body.timezone).to.equal(admin.server.siteA.timezone);
    });

    it('refuses bodies that break the rules, with pointers', async () => {
      const answer = await admin.api.call('createEvent', {
        body: {
          slug: nextSlug(),
          title: '   ',
          startsAt: at(5),
          endsAt: at(5),
          timezone: 'Mars/Olympus_Mons',
          format: 'online',
          location: 'Somewhere',
          onlineUrl: 'ftp://files.example/room',
          price: { amount: -1, currency: 'XYZ' },
        },
      });
      expect(answer.status).to.equal(400);
      expect(answer.problem.code).to.equal('invalid_request');
      const pointers = (answer.problem.errors ?? []).map((error) => error.pointer);
      expect(pointers).to.have.members(['/title', '/endsAt', '/timezone', '/location', '/onlineUrl', '/price/amount', '/price/currency']);

      const venue = await admin.api.call('createEvent', { body: { slug: nextSlug(), title: 'Venue', startsAt: at(0), endsAt: at(1), format: 'venue', onlineUrl: 'https://meet.example/x' } });
      expect(venue.status).to.equal(400);
      expect((venue.problem.errors ?? []).map((error) => error.pointer)).to.have.members(['/location', '/onlineUrl']);

      const unknown = await admin.api.call('createEvent', { body: { slug: 'Bad Slug', title: 'X', startsAt: at(0), endsAt: 'tomorrow', format: 'hybrid', color: 'red' } });
      expect(unknown.status).to.equal(400);
      expect((unknown.problem.errors ?? []).map((error) => error.pointer)).to.include.members(['/slug', '/endsAt', '/format', '/color']);
    });

    it('refuses a slug another event of the site uses (409 slug_taken), on create and on update', async () => {
      const first = await createEvent();
      const again = await admin.api.call('createEvent', { body: { slug: first.body.slug, title: 'Again', startsAt: at(0), endsAt: at(1), format: 'online' } });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('slug_taken');
      const second = await createEvent();
      const rename = await admin.api.call('updateEvent', { path: { eventId: String(second.body.id) }, headers: { 'if-match': '"v1"' }, body: { slug: first.body.slug } });
      expect(rename.status).to.equal(409);
      expect(rename.problem.code).to.equal('slug_taken');
      // Another site may use the same slug.
      const elsewhere = await admin.apiB.call<Event>('createEvent', { body: { slug: first.body.slug, title: 'Elsewhere', startsAt: at(0), endsAt: at(1), format: 'online' } });
      expect(elsewhere.status, elsewhere.text).to.equal(201);
    });

    it('updates with a merge patch under If-Match (428 without, 412 when stale); null clears', async () => {
      const { body: event } = await createEvent({ onlineUrl: 'https://meet.example/a', capacity: 10, price: { amount: 500, currency: 'USD' }, description: 'd' });
      const path = { eventId: String(event.id) };
      const missing = await admin.api.call('updateEvent', { path, body: { title: 'X' } });
      expect(missing.status).to.equal(428);
      expect(missing.problem.code).to.equal('precondition_required');
      const updated = await admin.api.call<Event>('updateEvent', {
        path,
        headers: { 'if-match': '"v1"' },
        contentType: 'application/merge-patch+json',
        body: { title: 'Renamed', capacity: null, price: null, description: null, status: 'published', endsAt: at(3) },
      });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.headers.get('etag')).to.equal('"v2"');
      expect(updated.body).to.include({ title: 'Renamed', capacity: null, price: null, description: null, status: 'published', endsAt: at(3), onlineUrl: 'https://meet.example/a', slug: event.slug });
      const stale = await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Stale' } });
      expect(stale.status).to.equal(412);
      expect(stale.problem.code).to.equal('precondition_failed');
      expect((await admin.api.call<Event>('getEvent', { path })).body.title).to.equal('Renamed');
      // The result of the patch must still hold together.
      const inverted = await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v2"' }, body: { endsAt: at(-1) } });
      expect(inverted.status).to.equal(400);
      expect(inverted.problem.errors).to.deep.equal([{ pointer: '/endsAt', message: 'must be after startsAt' }]);
      const toVenue = await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v2"' }, body: { format: 'venue' } });
      expect(toVenue.status).to.equal(400);
      expect((toVenue.problem.errors ?? []).map((error) => error.pointer)).to.have.members(['/location', '/onlineUrl']);
      const venue = await admin.api.call<Event>('updateEvent', { path, headers: { 'if-match': '"v2"' }, body: { format: 'venue', onlineUrl: null, location: 'Room 4' } });
      expect(venue.status, venue.text).to.equal(200);
      expect(venue.body).to.include({ format: 'venue', onlineUrl: null, location: 'Room 4' });
      // An empty patch changes nothing and keeps the ETag, but still needs a matching one.
      const empty = await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v3"' }, body: {} });
      expect(empty.status).to.equal(200);
      expect(empty.headers.get('etag')).to.equal('"v3"');
      expect((await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v2"' }, body: {} })).status).to.equal(412);
      const canceled = await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v3"' }, body: { status: 'canceled' } });
      expect(canceled.status).to.equal(400);
      expect(canceled.problem.errors?.[0]?.pointer).to.equal('/status');
    });

    it('cancels an event, keeping its registrations; a canceled event cannot be canceled again nor change status', async () => {
      const { body: event } = await createEvent({ status: 'published' });
      const path = { eventId: String(event.id) };
      const mia = await member();
      expect((await register(event.id, mia.id)).status).to.equal(201);
      const canceled = await admin.api.call<Event>('cancelEvent', { path });
      expect(canceled.status, canceled.text).to.equal(200);
      expect(canceled.body).to.include({ status: 'canceled', registeredCount: 1 });
      expect(canceled.headers.get('etag')).to.equal('"v2"');
      const registrations = await admin.api.call<RegistrationList>('listEventRegistrations', { path });
      expect(registrations.body.data.map((registration) => [registration.member.id, registration.state])).to.deep.equal([[mia.id, 'registered']]);
      const again = await admin.api.call('cancelEvent', { path });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('invalid_state_transition');
      expect(again.problem.detail).to.contain('canceled');
      const republish = await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v2"' }, body: { status: 'published' } });
      expect(republish.status).to.equal(409);
      expect(republish.problem.code).to.equal('invalid_state_transition');
      // Other fields of a canceled event can still be corrected.
      const corrected = await admin.api.call<Event>('updateEvent', { path, headers: { 'if-match': '"v2"' }, body: { description: 'Canceled: the speaker is ill.' } });
      expect(corrected.status).to.equal(200);
      expect(corrected.body.status).to.equal('canceled');
    });

    it('deletes an event without registrations, and refuses with 409 event_has_registrations otherwise (canceled ones count)', async () => {
      const { body: lonely } = await createEvent();
      expect((await admin.api.call('deleteEvent', { path: { eventId: String(lonely.id) } })).status).to.equal(204);
      expect((await admin.api.call('getEvent', { path: { eventId: String(lonely.id) } })).status).to.equal(404);
      expect((await admin.api.call('deleteEvent', { path: { eventId: String(lonely.id) } })).status).to.equal(404);

      const { body: event } = await createEvent();
      const registration = await register(event.id, (await member()).id);
      await admin.api.call('updateEventRegistration', {
        path: { eventId: String(event.id), registrationId: String(registration.body.id) },
        headers: { 'if-match': '"v1"' },
        body: { state: 'canceled' },
      });
      const refused = await admin.api.call('deleteEvent', { path: { eventId: String(event.id) } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('event_has_registrations');
      expect(refused.problem.detail).to.contain('Cancel the event instead');
      expect((await admin.api.call('getEvent', { path: { eventId: String(event.id) } })).status).to.equal(200);
    });

    it('refuses a capacity below the live registrations (409 capacity_below_registrations)', async () => {
      const { body: event } = await createEvent({ capacity: 5 });
      const path = { eventId: String(event.id) };
      for (const name of ['A', 'B']) expect((await register(event.id, (await member(name)).id)).status).to.equal(201);
      const refused = await admin.api.call('updateEvent', { path, headers: { 'if-match': '"v1"' }, body: { capacity: 1 } });
      expect(refused.status, refused.text).to.equal(409);
      expect(refused.problem.code).to.equal('capacity_below_registrations');
      const exact = await admin.api.call<Event>('updateEvent', { path, headers: { 'if-match': '"v1"' }, body: { capacity: 2 } });
      expect(exact.status).to.equal(200);
      expect(exact.body).to.include({ capacity: 2, registeredCount: 2 });
    });

    describe('listing', () => {
      let window: { from: string; to: string };
      let listed: Event[];

      before(async () => {
        // Six events in a window of their own, in shuffled start order, two of them published and one canceled.
        window = { from: at(1000), to: at(1100) };
        const offsets = [1030, 1010, 1050, 1000, 1040, 1020];
        const titles = ['delta', 'Bravo', 'foxtrot', 'alpha', 'echo', 'charlie'];
        listed = [];
        for (const [index, offset] of offsets.entries()) {
          const created = await createEvent({ startsAt: at(offset), endsAt: at(offset + 1), title: titles[index], status: index < 2 ? 'published' : 'draft' });
          listed.push(created.body);
        }
        const canceled = listed[5];
        if (!canceled) throw new Error('no event');
        const answer = await admin.api.call<Event>('cancelEvent', { path: { eventId: String(canceled.id) } });
        listed[5] = answer.body;
        // One event just outside the window on each side.
        await createEvent({ startsAt: at(999), endsAt: at(1001) });
        await createEvent({ startsAt: at(1100), endsAt: at(1101) });
      });

      async function pages(query: Record<string, string | number>): Promise<{ ids: number[]; pages: number }> {
        const ids: number[] = [];
        let cursor: string | null = null;
        let count = 0;
        do {
          const answer: AdminResult<EventList> = await admin.api.call<EventList>('listEvents', { query: { ...query, limit: 2, ...(cursor === null ? {} : { cursor }) } });
          expect(answer.status, answer.text).to.equal(200);
          expect(answer.body.data.length).to.be.at.most(2);
          ids.push(...answer.body.data.map((event) => event.id));
          cursor = answer.body.nextCursor;
          count += 1;
        } while (cursor !== null && count < 20);
        return { ids, pages: count };
      }

      it('pages through the start window newest start first by default, with no repeats and no gaps', async () => {
        const expected = [...listed].sort((a, b) => Date.parse(b.startsAt) - Date.parse(a.startsAt)).map((event) => event.id);
        const result = await pages({ startsFrom: window.from, startsTo: window.to });
        expect(result.ids).to.deep.equal(expected);
        expect(result.pages).to.equal(3);
        const whole = await admin.api.call<EventList>('listEvents', { query: { startsFrom: window.from, startsTo: window.to, limit: 100 } });
        expect(whole.body.data.map((event) => event.id)).to.deep.equal(expected);
        expect(whole.body.nextCursor).to.equal(null);
      });

      it('sorts by startsAt, title and createdAt in both directions', async () => {
        const query = { startsFrom: window.from, startsTo: window.to };
        const byStart = [...listed].sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt)).map((event) => event.id);
        expect((await pages({ ...query, sort: 'startsAt' })).ids).to.deep.equal(byStart);
        const byTitle = await pages({ ...query, sort: 'title' });
        const titles = listed.filter((event) => byTitle.ids.includes(event.id));
        expect(titles).to.have.length(6);
        // Stores compare titles by their collation; each page must follow the same order as the whole list.
        const whole = await admin.api.call<EventList>('listEvents', { query: { ...query, sort: 'title', limit: 100 } });
        expect(byTitle.ids).to.deep.equal(whole.body.data.map((event) => event.id));
        expect((await pages({ ...query, sort: '-title' })).ids).to.deep.equal([...byTitle.ids].reverse());
        const created = listed.map((event) => event.id);
        expect((await pages({ ...query, sort: 'createdAt' })).ids).to.deep.equal(created);
        expect((await pages({ ...query, sort: '-createdAt' })).ids).to.deep.equal([...created].reverse());
      });

      it('filters by status', async () => {
        const published = await pages({ startsFrom: window.from, startsTo: window.to, status: 'published', sort: 'createdAt' });
        expect(published.ids).to.deep.equal(listed.slice(0, 2).map((event) => event.id));
        const canceled = await pages({ startsFrom: window.from, startsTo: window.to, status: 'canceled' });
        expect(canceled.ids).to.deep.equal([listed[5]?.id]);
        const drafts = await pages({ startsFrom: window.from, startsTo: window.to, status: 'draft', sort: 'createdAt' });
        expect(drafts.ids).to.deep.equal(listed.slice(2, 5).map((event) => event.id));
      });

      it('refuses a cursor it did not issue, or one used with another sort or filters (400 invalid_cursor)', async () => {
        const first = await admin.api.call<EventList>('listEvents', { query: { startsFrom: window.from, startsTo: window.to, limit: 2 } });
        const cursor = first.body.nextCursor;
        expect(cursor).to.be.a('string');
        const garbage = await admin.api.call('listEvents', { query: { cursor: 'not-a-cursor' } });
        expect(garbage.status).to.equal(400);
        expect(garbage.problem.code).to.equal('invalid_cursor');
        const otherSort = await admin.api.call('listEvents', { query: { startsFrom: window.from, startsTo: window.to, limit: 2, sort: 'title', cursor: cursor ?? '' } });
        expect(otherSort.problem.code).to.equal('invalid_cursor');
        const otherFilter = await admin.api.call('listEvents', { query: { startsFrom: window.from, limit: 2, cursor: cursor ?? '' } });
        expect(otherFilter.problem.code).to.equal('invalid_cursor');
        const badFilter = await admin.api.call('listEvents', { query: { status: 'archived', startsFrom: 'yesterday' } });
        expect(badFilter.status).to.equal(400);
        expect((badFilter.problem.errors ?? []).map((error) => error.parameter)).to.have.members(['status', 'startsFrom']);
      });
    });
  });

  describe('registrations', () => {
    it('registers a member of the site (201, ETag, Location) and refuses a second registration (409 already_registered)', async () => {
      const { body: event } = await createEvent();
      const mia = await member('Mia Member');
      const answer = await register(event.id, mia.id);
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.include({ eventId: event.id, state: 'registered', canceledAt: null, ticketCode: null });
      expect(answer.body.member).to.deep.equal({ id: mia.id, name: 'Mia Member', email: mia.email });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.origin}/api/admin/v1/events/${event.id}/registrations/${answer.body.id}`);
      const read = await admin.api.call<Registration>('getEventRegistration', { path: { eventId: String(event.id), registrationId: String(answer.body.id) } });
      expect(read.body).to.deep.equal(answer.body);
      expect((await admin.api.call<Event>('getEvent', { path: { eventId: String(event.id) } })).body.registeredCount).to.equal(1);
      const twice = await register(event.id, mia.id);
      expect(twice.status).to.equal(409);
      expect(twice.problem.code).to.equal('already_registered');
    });

    it('refuses users who are not members of the site (400 at /userId) and unknown events (404)', async () => {
      const { body: event } = await createEvent();
      const outsider = await makeUser(scratch().db, admin.server.siteB, ['student'], 'Other School');
      const answer = await register(event.id, outsider.id);
      expect(answer.status).to.equal(400);
      expect(answer.problem.errors).to.deep.equal([{ pointer: '/userId', message: 'is not a member of this site' }]);
      expect((await register(event.id, 987654)).status).to.equal(400);
      expect((await register(987654, outsider.id)).status).to.equal(404);
    });

    it('refuses a registration at capacity (409 event_full, canceled ones not counted) and on a canceled event (409 event_canceled)', async () => {
      const { body: event } = await createEvent({ capacity: 1 });
      const first = await register(event.id, (await member('First')).id);
      expect(first.status).to.equal(201);
      const full = await register(event.id, (await member('Second')).id);
      expect(full.status).to.equal(409);
      expect(full.problem.code).to.equal('event_full');
      const path = { eventId: String(event.id), registrationId: String(first.body.id) };
      expect((await admin.api.call('updateEventRegistration', { path, headers: { 'if-match': '"v1"' }, body: { state: 'canceled' } })).status).to.equal(200);
      const third = await member('Third');
      expect((await register(event.id, third.id)).status).to.equal(201);
      // Reinstating the canceled one would exceed the capacity.
      const reinstate = await admin.api.call('updateEventRegistration', { path, headers: { 'if-match': '"v2"' }, body: { state: 'registered' } });
      expect(reinstate.status).to.equal(409);
      expect(reinstate.problem.code).to.equal('event_full');

      const { body: doomed } = await createEvent();
      await admin.api.call('cancelEvent', { path: { eventId: String(doomed.id) } });
      const late = await register(doomed.id, third.id);
      expect(late.status).to.equal(409);
      expect(late.problem.code).to.equal('event_canceled');
    });

    it('moves a registration along the allowed transitions only, under If-Match', async () => {
      const { body: event } = await createEvent();
      const created = await register(event.id, (await member()).id);
      const path = { eventId: String(event.id), registrationId: String(created.body.id) };
      expect((await admin.api.call('updateEventRegistration', { path, body: { state: 'attended' } })).status).to.equal(428);
      const attended = await admin.api.call<Registration>('updateEventRegistration', { path, headers: { 'if-match': '"v1"' }, body: { state: 'attended' } });
      expect(attended.status, attended.text).to.equal(200);
      expect(attended.body.state).to.equal('attended');
      expect(attended.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updateEventRegistration', { path, headers: { 'if-match': '"v1"' }, body: { state: 'no_show' } })).status).to.equal(412);
      const refused = await admin.api.call('updateEventRegistration', { path, headers: { 'if-match': '"v2"' }, body: { state: 'canceled' } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('invalid_state_transition');
      expect(refused.problem.detail).to.contain('attended');
      // The same state again changes nothing.
      const same = await admin.api.call('updateEventRegistration', { path, headers: { 'if-match': '"v2"' }, body: { state: 'attended' } });
      expect(same.headers.get('etag')).to.equal('"v2"');
      const noShow = await admin.api.call<Registration>('updateEventRegistration', { path, headers: { 'if-match': '"v2"' }, body: { state: 'no_show' } });
      expect(noShow.body.state).to.equal('no_show');
      const back = await admin.api.call<Registration>('updateEventRegistration', { path, headers: { 'if-match': '"v3"' }, body: { state: 'registered' } });
      expect(back.body.state).to.equal('registered');
      const canceled = await admin.api.call<Registration>('updateEventRegistration', { path, headers: { 'if-match': '"v4"' }, body: { state: 'canceled' } });
      expect(canceled.body.state).to.equal('canceled');
      expect(canceled.body.canceledAt).to.be.a('string');
      expect((await admin.api.call<Event>('getEvent', { path: { eventId: String(event.id) } })).body.registeredCount).to.equal(0);
      const noShowFromCanceled = await admin.api.call('updateEventRegistration', { path, headers: { 'if-match': '"v5"' }, body: { state: 'no_show' } });
      expect(noShowFromCanceled.problem.code).to.equal('invalid_state_transition');
      const reinstated = await admin.api.call<Registration>('updateEventRegistration', { path, headers: { 'if-match': '"v5"' }, body: { state: 'registered' } });
      expect(reinstated.body).to.include({ state: 'registered', canceledAt: null });
      const bad = await admin.api.call('updateEventRegistration', { path, headers: { 'if-match': '"v6"' }, body: { state: 'checked_in', note: 'x' } });
      expect(bad.status).to.equal(400);
      expect((bad.problem.errors ?? []).map((error) => error.pointer)).to.have.members(['/state', '/note']);
    });

    it('lists registrations in registration order, filtered by state, across pages', async () => {
      const { body: event } = await createEvent();
      const ids: number[] = [];
      for (const name of ['R1', 'R2', 'R3', 'R4', 'R5']) {
        const answer = await register(event.id, (await member(name)).id);
        ids.push(answer.body.id);
      }
      await admin.api.call('updateEventRegistration', { path: { eventId: String(event.id), registrationId: String(ids[1]) }, headers: { 'if-match': '"v1"' }, body: { state: 'canceled' } });
      const path = { eventId: String(event.id) };
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page: AdminResult<RegistrationList> = await admin.api.call<RegistrationList>('listEventRegistrations', { path, query: { limit: 2, ...(cursor === null ? {} : { cursor }) } });
        expect(page.status).to.equal(200);
        seen.push(...page.body.data.map((registration) => registration.id));
        cursor = page.body.nextCursor;
      } while (cursor !== null && seen.length < 50);
      expect(seen).to.deep.equal(ids);
      const descending = await admin.api.call<RegistrationList>('listEventRegistrations', { path, query: { sort: '-registeredAt' } });
      expect(descending.body.data.map((registration) => registration.id)).to.deep.equal([...ids].reverse());
      const canceled = await admin.api.call<RegistrationList>('listEventRegistrations', { path, query: { state: 'canceled' } });
      expect(canceled.body.data.map((registration) => registration.id)).to.deep.equal([ids[1]]);
      const live = await admin.api.call<RegistrationList>('listEventRegistrations', { path, query: { state: 'registered' } });
      expect(live.body.data.map((registration) => registration.id)).to.deep.equal(ids.filter((id) => id !== ids[1]));
      expect((await admin.api.call('listEventRegistrations', { path, query: { cursor: 'bm9wZQ' } })).problem.code).to.equal('invalid_cursor');
      expect((await admin.api.call('listEventRegistrations', { path: { eventId: '987654' } })).status).to.equal(404);
    });
  });

  describe('scopes and sites', () => {
    it('needs events:read to read and events:write to change (403 insufficient_scope)', async () => {
      const reader = await issueToken(scratch().db, admin.server.siteA, { scopes: ['events:read'] });
      const school = await issueToken(scratch().db, admin.server.siteA, { scopes: ['school:read', 'school:write'] });
      const { body: event } = await createEvent();
      const readOnly = admin.api.withToken(reader.token);
      expect((await readOnly.call('listEvents')).status).to.equal(200);
      expect((await readOnly.call('getEvent', { path: { eventId: String(event.id) } })).status).to.equal(200);
      const writes = [
        await readOnly.call('createEvent', { body: { slug: nextSlug(), title: 'X', startsAt: at(0), endsAt: at(1), format: 'online' } }),
        await readOnly.call('updateEvent', { path: { eventId: String(event.id) }, headers: { 'if-match': '"v1"' }, body: {} }),
        await readOnly.call('deleteEvent', { path: { eventId: String(event.id) } }),
        await readOnly.call('cancelEvent', { path: { eventId: String(event.id) } }),
        await readOnly.call('createEventRegistration', { path: { eventId: String(event.id) }, body: { userId: 1 } }),
      ];
      for (const answer of writes) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
        expect(answer.headers.get('www-authenticate')).to.contain('scope="events:write"');
      }
      const other = admin.api.withToken(school.token);
      for (const answer of [await other.call('listEvents'), await other.call('listEventRegistrations', { path: { eventId: String(event.id) } })]) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
      }
      expect((await admin.api.call('listEvents', { token: null })).status).to.equal(401);
    });

    it("never shows one site's events or registrations to another site's operator (404)", async () => {
      const { body: event } = await createEvent();
      const registration = await register(event.id, (await member()).id);
      const path = { eventId: String(event.id) };
      const registrationPath = { eventId: String(event.id), registrationId: String(registration.body.id) };
      const answers = [
        await admin.apiB.call('getEvent', { path }),
        await admin.apiB.call('updateEvent', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Taken over' } }),
        await admin.apiB.call('deleteEvent', { path }),
        await admin.apiB.call('cancelEvent', { path }),
        await admin.apiB.call('listEventRegistrations', { path }),
        await admin.apiB.call('createEventRegistration', { path, body: { userId: registration.body.member.id } }),
        await admin.apiB.call('getEventRegistration', { path: registrationPath }),
        await admin.apiB.call('updateEventRegistration', { path: registrationPath, headers: { 'if-match': '"v1"' }, body: { state: 'canceled' } }),
      ];
      for (const answer of answers) {
        expect(answer.status, answer.text).to.equal(404);
        expect(answer.problem.code).to.equal('not_found');
      }
      const list = await admin.apiB.call<EventList>('listEvents', { query: { limit: 100 } });
      expect(list.body.data.map((item) => item.id)).to.not.include(event.id);
      expect((await admin.api.call<Event>('getEvent', { path })).body).to.include({ title: event.title, status: event.status });
      // A registration id of another event of the same site is not found under this event either.
      const { body: other } = await createEvent();
      expect((await admin.api.call('getEventRegistration', { path: { eventId: String(other.id), registrationId: String(registration.body.id) } })).status).to.equal(404);
    });
  });
});
