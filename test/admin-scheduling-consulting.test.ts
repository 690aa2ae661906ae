import { expect } from 'chai';
import type { User } from '../src/accounts/users.js';
import type { Database } from '../src/db/connection.js';
import { encodeNodeId } from '../src/member/ids.js';
import type { Site } from '../src/sites/sites.js';
import { issueToken, type AdminResult, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';

/**
 * Admin API, scheduling area: consulting services, their slots, and meetings with the staff actions of the spec's
 * Meeting state table (docs/admin-scheduling.md). Every call goes through AdminApi.call (checked against the served
 * contract); the last suite reads the result back through the member GraphQL API (variant A).
 */

type Service = Schemas['ConsultingService'];
type ServiceList = Schemas['ConsultingServiceList'];
type Slot = Schemas['ConsultingSlot'];
type SlotList = Schemas['ConsultingSlotList'];
type Meeting = Schemas['Meeting'];
type MeetingWithSeats = Schemas['MeetingWithSeats'];
type MeetingList = Schemas['MeetingList'];

const EVENTS_SCOPES = ['events:read', 'events:write'];
const MINUTE = 60_000;

let courseCounter = 0;

async function makeCourse(db: Database, site: Site, title = 'Course'): Promise<number> {
  courseCounter += 1;
  const now = new Date();
  const [id] = await db('courses').insert({ site_id: site.id, slug: `course-${courseCounter}`, title, status: 'published', version: 1, created_at: now, updated_at: now });
  return Number(id);
}

async function addSeat(db: Database, meetingId: number, user: User, reservedAt: Date, canceledAt: Date | null = null): Promise<void> {
  await db('meeting_seats').insert({ meeting_id: meetingId, user_id: user.id, reserved_at: reservedAt, canceled_at: canceledAt });
}

/** A study group of `members` with one meeting, written as the importer writes them. */
async function makeStudyGroupMeeting(db: Database, site: Site, members: readonly User[], startsAt: Date): Promise<{ groupId: number; meetingId: number }> {
  const now = new Date();
  const [group] = await db('study_groups').insert({ site_id: site.id, name: 'Thursday readers', created_at: now, updated_at: now });
  const groupId = Number(group);
  for (const member of members) await db('study_group_members').insert({ study_group_id: groupId, user_id: member.id, joined_at: now });
  const [meeting] = await db('meetings').insert({
    site_id: site.id,
    study_group_id: groupId,
    starts_at: startsAt,
    ends_at: new Date(startsAt.getTime() + 60 * MINUTE),
    state: 'available',
    capacity: Math.max(1, members.length),
    version: 1,
    created_at: now,
    updated_at: now,
  });
  return { groupId, meetingId: Number(meeting) };
}

function pointers(answer: AdminResult): string[] {
  return (answer.problem.errors ?? []).map((error) => error.pointer ?? `?${error.parameter ?? ''}`);
}

describeEachDatabase('admin API: consulting services, slots and meetings', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: EVENTS_SCOPES });

  async function createService(overrides: Record<string, unknown> = {}): Promise<Service> {
    const answer = await admin.api.call<Service>('createConsultingService', { body: { title: 'Office hours', durationMinutes: 30, capacity: 2, ...overrides } });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  async function createSlot(serviceId: number, overrides: Record<string, unknown> = {}): Promise<Slot> {
    const answer = await admin.api.call<Slot>('createConsultingSlot', { path: { serviceId: String(serviceId) }, body: { weekday: 1, startTime: '10:00', ...overrides } });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  async function openMeeting(serviceId: number, body: Record<string, unknown>): Promise<MeetingWithSeats> {
    const answer = await admin.api.call<MeetingWithSeats>('createConsultingMeeting', { path: { serviceId: String(serviceId) }, body });
    expect(answer.status, answer.text).to.equal(201);
    return answer.body;
  }

  describe('consulting services', () => {
    it('creates a service offered against courses of this site (draft by default), with ETag and Location', async () => {
      const courseA = await makeCourse(admin.db, admin.server.siteA, 'Algebra');
      const courseB = await makeCourse(admin.db, admin.server.siteA, 'Biology');
      const answer = await admin.api.call<Service>('createConsultingService', {
        body: { title: ' Tutoring ', description: 'One to one.', courseIds: [courseB, courseA], durationMinutes: 45, capacity: 1, price: { amount: 2500, currency: 'USD' } },
      });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.include({ title: 'Tutoring', description: 'One to one.', durationMinutes: 45, capacity: 1, status: 'draft' });
      expect(answer.body.courseIds).to.deep.equal([courseA, courseB].sort((a, b) => a - b));
      expect(answer.body.price).to.deep.equal({ amount: 2500, currency: 'USD' });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/consulting-services/${answer.body.id}`);
      const read = await admin.api.call<Service>('getConsultingService', { path: { serviceId: String(answer.body.id) } });
      expect(read.body).to.deep.equal(answer.body);
      expect(read.headers.get('etag')).to.equal('"v1"');
    });

    it("refuses another site's courses, unknown courses and bad values, with pointers", async () => {
      const own = await makeCourse(admin.db, admin.server.siteA);
      const foreign = await makeCourse(admin.db, admin.server.siteB);
      const answer = await admin.api.call('createConsultingService', {
        body: { title: '  ', courseIds: [own, foreign, 999999], durationMinutes: 0, capacity: 1, price: { amount: -5, currency: 'ABC' }, status: 'retired', extra: 1 },
      });
      expect(answer.status).to.equal(400);
      expect(pointers(answer)).to.include.members(['/durationMinutes', '/status', '/extra']);
      const rules = await admin.api.call('createConsultingService', { body: { title: '  ', courseIds: [own, foreign, 999999], durationMinutes: 30, capacity: 1, price: { amount: -5, currency: 'ABC' } } });
      expect(rules.status).to.equal(400);
      expect(pointers(rules)).to.have.members(['/title', '/courseIds/1', '/courseIds/2', '/price/amount', '/price/currency']);
    });

    it('updates with a merge patch under If-Match; courseIds replaces the list and moves the ETag', async () => {
      const first = await makeCourse(admin.db, admin.server.siteA);
      const second = await makeCourse(admin.db, admin.server.siteA);
      const service = await createService({ courseIds: [first], price: { amount: 100, currency: 'EUR' } });
      const path = { serviceId: String(service.id) };
      expect((await admin.api.call('updateConsultingService', { path, body: { title: 'X' } })).status).to.equal(428);
      const relinked = await admin.api.call<Service>('updateConsultingService', { path, headers: { 'if-match': '"v1"' }, body: { courseIds: [second] } });
      expect(relinked.status, relinked.text).to.equal(200);
      expect(relinked.body.courseIds).to.deep.equal([second]);
      expect(relinked.headers.get('etag')).to.equal('"v2"');
      const stale = await admin.api.call('updateConsultingService', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Stale' } });
      expect(stale.status).to.equal(412);
      const patched = await admin.api.call<Service>('updateConsultingService', {
        path,
        headers: { 'if-match': '"v2"' },
        contentType: 'application/merge-patch+json',
        body: { title: 'Renamed', price: null, status: 'published', capacity: 4 },
      });
      expect(patched.body).to.include({ title: 'Renamed', price: null, status: 'published', capacity: 4 });
      expect(patched.body.courseIds).to.deep.equal([second]);
      const foreign = await admin.api.call('updateConsultingService', { path, headers: { 'if-match': '"v3"' }, body: { courseIds: [await makeCourse(admin.db, admin.server.siteB)] } });
      expect(foreign.status).to.equal(400);
      expect(pointers(foreign)).to.deep.equal(['/courseIds/0']);
    });

    it('lists services across pages, sorted and filtered by status and course', async () => {
      const course = await makeCourse(admin.db, admin.server.siteA, 'Filter course');
      const created: Service[] = [];
      for (const [index, title] of ['Kappa', 'Lambda', 'Mu', 'Nu', 'Xi'].entries()) {
        created.push(await createService({ title, status: index % 2 === 0 ? 'archived' : 'draft', courseIds: index < 3 ? [course] : [] }));
      }
      const byCourse = await admin.api.call<ServiceList>('listConsultingServices', { query: { courseId: course, sort: 'createdAt' } });
      expect(byCourse.body.data.map((service) => service.id)).to.deep.equal(created.slice(0, 3).map((service) => service.id));
      const archived = await admin.api.call<ServiceList>('listConsultingServices', { query: { courseId: course, status: 'archived', sort: '-createdAt' } });
      expect(archived.body.data.map((service) => service.id)).to.deep.equal([created[2]?.id, created[0]?.id]);
      // Every service of the site, two per page, newest first, no repeats and no gaps.
      const all = await admin.api.call<ServiceList>('listConsultingServices', { query: { limit: 100 } });
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const page: AdminResult<ServiceList> = await admin.api.call<ServiceList>('listConsultingServices', { query: { limit: 2, ...(cursor === null ? {} : { cursor }) } });
        seen.push(...page.body.data.map((service) => service.id));
        cursor = page.body.nextCursor;
      } while (cursor !== null && seen.length < 500);
      const ids = all.body.data.map((service) => service.id);
      expect(seen).to.deep.equal(ids);
      expect(ids).to.deep.equal([...ids].sort((a, b) => b - a));
      const byTitle = await admin.api.call<ServiceList>('listConsultingServices', { query: { courseId: course, sort: 'title' } });
      expect(byTitle.body.data.map((service) => service.title)).to.deep.equal(['Kappa', 'Lambda', 'Mu']);
      const byTitleDown = await admin.api.call<ServiceList>('listConsultingServices', { query: { courseId: course, sort: '-title' } });
      expect(byTitleDown.body.data.map((service) => service.title)).to.deep.equal(['Mu', 'Lambda', 'Kappa']);
      const updated = await admin.api.call<ServiceList>('listConsultingServices', { query: { courseId: course, sort: 'updatedAt' } });
      expect(updated.body.data).to.have.length(3);
      const bad = await admin.api.call('listConsultingServices', { query: { cursor: 'eyJ2IjoxfQ' } });
      expect(bad.problem.code).to.equal('invalid_cursor');
    });

    it('deletes a service without meetings (slots go with it) and refuses one with meetings (409 service_has_meetings)', async () => {
      const service = await createService();
      const slot = await createSlot(service.id);
      expect((await admin.api.call('deleteConsultingService', { path: { serviceId: String(service.id) } })).status).to.equal(204);
      expect((await admin.api.call('getConsultingService', { path: { serviceId: String(service.id) } })).status).to.equal(404);
      expect((await admin.db('consulting_slots').where({ id: slot.id }).first()) as unknown).to.equal(undefined);

      const busy = await createService();
      await openMeeting(busy.id, { startsAt: '2031-05-01T10:00:00Z' });
      const refused = await admin.api.call('deleteConsultingService', { path: { serviceId: String(busy.id) } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('service_has_meetings');
      expect(refused.problem.detail).to.contain('archived');
      expect((await admin.api.call('getConsultingService', { path: { serviceId: String(busy.id) } })).status).to.equal(200);
    });
  });

  describe('slots', () => {
    it("creates a slot with the service's duration and capacity and the school's time zone by default", async () => {
      const service = await createService({ durationMinutes: 50, capacity: 3 });
      const answer = await admin.api.call<Slot>('createConsultingSlot', { path: { serviceId: String(service.id) }, body: { weekday: 3, startTime: '18:30' } });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.include({ serviceId: service.id, weekday: 3, startTime: '18:30', durationMinutes: 50, capacity: 3, timezone: admin.server.siteA.timezone, hostUserId: null, validFrom: null, validUntil: null });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/consulting-services/${service.id}/slots/${answer.body.id}`);
      const read = await admin.api.call<Slot>('getConsultingSlot', { path: { serviceId: String(service.id), slotId: String(answer.body.id) } });
      expect(read.body).to.deep.equal(answer.body);
    });

    it('checks the host, the time zone and the validity window', async () => {
      const service = await createService();
      const lecturer = await makeUser(admin.db, admin.server.siteA, ['lecturer'], 'Lena Lecturer');
      const student = await makeUser(admin.db, admin.server.siteA, ['student'], 'Sam Student');
      const hosted = await createSlot(service.id, { hostUserId: lecturer.id, timezone: 'europe/berlin', validFrom: '2031-01-01T00:00:00Z', validUntil: '2031-12-31T00:00:00Z' });
      expect(hosted).to.include({ hostUserId: lecturer.id, timezone: 'Europe/Berlin', validFrom: '2031-01-01T00:00:00.000Z', validUntil: '2031-12-31T00:00:00.000Z' });
      const refused = await admin.api.call('createConsultingSlot', {
        path: { serviceId: String(service.id) },
        body: { weekday: 1, startTime: '10:00', hostUserId: student.id, timezone: 'Nowhere/City', validFrom: '2031-06-01T00:00:00Z', validUntil: '2031-05-01T00:00:00Z' },
      });
      expect(refused.status).to.equal(400);
      expect(pointers(refused)).to.have.members(['/hostUserId', '/timezone', '/validUntil']);
      const schema = await admin.api.call('createConsultingSlot', { path: { serviceId: String(service.id) }, body: { weekday: 7, startTime: '25:00', capacity: 0 } });
      expect(pointers(schema)).to.have.members(['/weekday', '/startTime', '/capacity']);
    });

    it('updates a slot under If-Match (428, 412), with the rules applied to the result', async () => {
      const service = await createService();
      const slot = await createSlot(service.id, { validFrom: '2031-01-01T00:00:00Z' });
      const path = { serviceId: String(service.id), slotId: String(slot.id) };
      expect((await admin.api.call('updateConsultingSlot', { path, body: { weekday: 2 } })).status).to.equal(428);
      const updated = await admin.api.call<Slot>('updateConsultingSlot', { path, headers: { 'if-match': '"v1"' }, body: { weekday: 2, startTime: '09:15', validFrom: null, capacity: 5 } });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body).to.include({ weekday: 2, startTime: '09:15', validFrom: null, capacity: 5 });
      expect(updated.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updateConsultingSlot', { path, headers: { 'if-match': '"v1"' }, body: { weekday: 3 } })).status).to.equal(412);
      await admin.api.call('updateConsultingSlot', { path, headers: { 'if-match': '"v2"' }, body: { validUntil: '2031-02-01T00:00:00Z' } });
      const inverted = await admin.api.call('updateConsultingSlot', { path, headers: { 'if-match': '"v3"' }, body: { validFrom: '2031-03-01T00:00:00Z' } });
      expect(inverted.status).to.equal(400);
      expect(pointers(inverted)).to.deep.equal(['/validUntil']);
    });

    it('lists slots by weekday across pages, and refuses unknown services (404)', async () => {
      const service = await createService();
      const created: Slot[] = [];
      for (const weekday of [5, 0, 3, 6, 1]) created.push(await createSlot(service.id, { weekday }));
      const path = { serviceId: String(service.id) };
      const seen: Slot[] = [];
      let cursor: string | null = null;
      do {
        const page: AdminResult<SlotList> = await admin.api.call<SlotList>('listConsultingSlots', { path, query: { limit: 2, ...(cursor === null ? {} : { cursor }) } });
        expect(page.status).to.equal(200);
        seen.push(...page.body.data);
        cursor = page.body.nextCursor;
      } while (cursor !== null && seen.length < 50);
      expect(seen.map((slot) => slot.weekday)).to.deep.equal([0, 1, 3, 5, 6]);
      const down = await admin.api.call<SlotList>('listConsultingSlots', { path, query: { sort: '-weekday' } });
      expect(down.body.data.map((slot) => slot.weekday)).to.deep.equal([6, 5, 3, 1, 0]);
      const byCreation = await admin.api.call<SlotList>('listConsultingSlots', { path, query: { sort: 'createdAt' } });
      expect(byCreation.body.data.map((slot) => slot.id)).to.deep.equal(created.map((slot) => slot.id));
      expect((await admin.api.call('listConsultingSlots', { path: { serviceId: '987654' } })).status).to.equal(404);
      expect((await admin.api.call('listConsultingSlots', { path, query: { cursor: '!!' } })).problem.code).to.equal('invalid_cursor');
    });

    it('deletes a slot; its meetings stay with their time and seats, their slotId becomes null', async () => {
      const service = await createService();
      const slot = await createSlot(service.id, { weekday: 1, startTime: '10:00', timezone: 'Asia/Taipei' });
      const meeting = await openMeeting(service.id, { slotId: slot.id, startsAt: '2031-03-03T02:00:00Z' });
      expect(meeting.slotId).to.equal(slot.id);
      await addSeat(admin.db, meeting.id, await makeUser(admin.db, admin.server.siteA, ['student'], 'Seat Holder'), new Date());
      const path = { serviceId: String(service.id), slotId: String(slot.id) };
      expect((await admin.api.call('deleteConsultingSlot', { path })).status).to.equal(204);
      expect((await admin.api.call('getConsultingSlot', { path })).status).to.equal(404);
      const after = await admin.api.call<MeetingWithSeats>('getMeeting', { path: { meetingId: String(meeting.id) } });
      expect(after.body).to.include({ slotId: null, startsAt: meeting.startsAt, endsAt: meeting.endsAt, state: 'available', attendeesCount: 1 });
      expect(after.body.seats).to.have.length(1);
      expect(after.headers.get('etag')).to.equal('"v2"');
    });
  });

  describe('meetings', () => {
    it('opens a meeting from a slot with its defaults, only at an occurrence of the slot inside its window', async () => {
      const service = await createService({ durationMinutes: 30, capacity: 2 });
      const slot = await createSlot(service.id, { weekday: 1, startTime: '10:00', timezone: 'Asia/Taipei', durationMinutes: 45, capacity: 4, validUntil: '2031-12-31T00:00:00Z' });
      const answer = await admin.api.call<MeetingWithSeats>('createConsultingMeeting', { path: { serviceId: String(service.id) }, body: { slotId: slot.id, startsAt: '2031-03-03T02:00:00Z' } });
      expect(answer.status, answer.text).to.equal(201);
      expect(answer.body).to.include({
        kind: 'consulting',
        serviceId: service.id,
        slotId: slot.id,
        studyGroupId: null,
        state: 'available',
        startsAt: '2031-03-03T02:00:00.000Z',
        endsAt: '2031-03-03T02:45:00.000Z',
        capacity: 4,
        attendeesCount: 0,
        roomUrl: null,
        confirmedAt: null,
        confirmedByUserId: null,
      });
      expect(answer.body.seats).to.deep.equal([]);
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/meetings/${answer.body.id}`);
      const wrongHour = await admin.api.call('createConsultingMeeting', { path: { serviceId: String(service.id) }, body: { slotId: slot.id, startsAt: '2031-03-03T03:00:00Z' } });
      expect(wrongHour.status).to.equal(400);
      expect(pointers(wrongHour)).to.deep.equal(['/startsAt']);
      const wrongDay = await admin.api.call('createConsultingMeeting', { path: { serviceId: String(service.id) }, body: { slotId: slot.id, startsAt: '2031-03-04T02:00:00Z' } });
      expect(pointers(wrongDay)).to.deep.equal(['/startsAt']);
      const tooLate = await admin.api.call('createConsultingMeeting', { path: { serviceId: String(service.id) }, body: { slotId: slot.id, startsAt: '2032-03-01T02:00:00Z' } });
      expect(pointers(tooLate)).to.deep.equal(['/startsAt']);
      const other = await createService();
      const foreignSlot = await admin.api.call('createConsultingMeeting', { path: { serviceId: String(other.id) }, body: { slotId: slot.id, startsAt: '2031-03-03T02:00:00Z' } });
      expect(pointers(foreignSlot)).to.deep.equal(['/slotId']);
      const adHoc = await openMeeting(service.id, { startsAt: '2031-03-05T07:20:00Z', roomUrl: 'https://meet.example/r/1' });
      expect(adHoc).to.include({ slotId: null, endsAt: '2031-03-05T07:50:00.000Z', capacity: 2, roomUrl: 'https://meet.example/r/1' });
      const inverted = await admin.api.call('createConsultingMeeting', { path: { serviceId: String(service.id) }, body: { startsAt: '2031-03-05T07:20:00Z', endsAt: '2031-03-05T07:00:00Z', roomUrl: 'javascript:alert(1)' } });
      expect(pointers(inverted)).to.have.members(['/endsAt', '/roomUrl']);
      expect((await admin.api.call('createConsultingMeeting', { path: { serviceId: '987654' }, body: { startsAt: '2031-03-05T07:20:00Z' } })).status).to.equal(404);
    });

    it('shows seats with their members and counts attendees like the member API (seats not given up; the roster for study groups)', async () => {
      const service = await createService();
      const meeting = await openMeeting(service.id, { startsAt: '2031-04-01T10:00:00Z' });
      const ann = await makeUser(admin.db, admin.server.siteA, ['student'], 'Ann Attendee');
      const bob = await makeUser(admin.db, admin.server.siteA, ['student'], 'Bob Backout');
      await addSeat(admin.db, meeting.id, ann, new Date('2031-03-01T00:00:00Z'));
      await addSeat(admin.db, meeting.id, bob, new Date('2031-03-02T00:00:00Z'), new Date('2031-03-03T00:00:00Z'));
      const read = await admin.api.call<MeetingWithSeats>('getMeeting', { path: { meetingId: String(meeting.id) } });
      expect(read.status).to.equal(200);
      expect(read.body.attendeesCount).to.equal(1);
      expect(read.body.seats).to.deep.equal([
        { member: { id: ann.id, name: 'Ann Attendee', email: ann.email }, reservedAt: '2031-03-01T00:00:00.000Z', canceledAt: null },
        { member: { id: bob.id, name: 'Bob Backout', email: bob.email }, reservedAt: '2031-03-02T00:00:00.000Z', canceledAt: '2031-03-03T00:00:00.000Z' },
      ]);
      const { meetingId: groupMeeting, groupId } = await makeStudyGroupMeeting(admin.db, admin.server.siteA, [ann, bob, admin.operator], new Date('2031-04-02T10:00:00Z'));
      const group = await admin.api.call<MeetingWithSeats>('getMeeting', { path: { meetingId: String(groupMeeting) } });
      expect(group.body).to.include({ kind: 'study_group', studyGroupId: groupId, serviceId: null, attendeesCount: 3 });
      expect(group.body.seats).to.deep.equal([]);
    });

    it('lists meetings of both kinds across pages, filtered by service, kind, state and start window', async () => {
      const service = await createService();
      const otherService = await createService();
      const windowStart = Date.parse('2033-01-01T00:00:00Z');
      const hour = 60 * MINUTE;
      const ids: Array<{ id: number; startsAt: number }> = [];
      for (const offset of [5, 1, 3]) {
        const meeting = await openMeeting(service.id, { startsAt: new Date(windowStart + offset * hour).toISOString() });
        ids.push({ id: meeting.id, startsAt: windowStart + offset * hour });
      }
      const otherMeeting = await openMeeting(otherService.id, { startsAt: new Date(windowStart + 2 * hour).toISOString() });
      ids.push({ id: otherMeeting.id, startsAt: windowStart + 2 * hour });
      const { meetingId: groupMeeting } = await makeStudyGroupMeeting(admin.db, admin.server.siteA, [admin.operator], new Date(windowStart + 4 * hour));
      ids.push({ id: groupMeeting, startsAt: windowStart + 4 * hour });
      await openMeeting(service.id, { startsAt: new Date(windowStart + 48 * hour).toISOString() });
      const firstId = ids[0]?.id ?? 0;
      await admin.api.call('cancelMeeting', { path: { meetingId: String(firstId) } });

      const window = { startsFrom: new Date(windowStart).toISOString(), startsTo: new Date(windowStart + 24 * hour).toISOString() };
      const seen: Meeting[] = [];
      let cursor: string | null = null;
      do {
        const page: AdminResult<MeetingList> = await admin.api.call<MeetingList>('listMeetings', { query: { ...window, limit: 2, ...(cursor === null ? {} : { cursor }) } });
        expect(page.status, page.text).to.equal(200);
        seen.push(...page.body.data);
        cursor = page.body.nextCursor;
      } while (cursor !== null && seen.length < 50);
      expect(seen.map((meeting) => meeting.id)).to.deep.equal([...ids].sort((a, b) => b.startsAt - a.startsAt).map((meeting) => meeting.id));
      expect(seen.find((meeting) => meeting.id === groupMeeting)).to.include({ kind: 'study_group', attendeesCount: 1 });

      const ascending = await admin.api.call<MeetingList>('listMeetings', { query: { ...window, sort: 'startsAt' } });
      expect(ascending.body.data.map((meeting) => meeting.id)).to.deep.equal([...ids].sort((a, b) => a.startsAt - b.startsAt).map((meeting) => meeting.id));
      const ofService = await admin.api.call<MeetingList>('listMeetings', { query: { ...window, serviceId: service.id, sort: 'startsAt' } });
      expect(ofService.body.data.map((meeting) => meeting.startsAt)).to.deep.equal([1, 3, 5].map((offset) => new Date(windowStart + offset * hour).toISOString()));
      const groups = await admin.api.call<MeetingList>('listMeetings', { query: { ...window, kind: 'study_group' } });
      expect(groups.body.data.map((meeting) => meeting.id)).to.deep.equal([groupMeeting]);
      const consulting = await admin.api.call<MeetingList>('listMeetings', { query: { ...window, kind: 'consulting' } });
      expect(consulting.body.data).to.have.length(4);
      const canceled = await admin.api.call<MeetingList>('listMeetings', { query: { ...window, state: 'canceled' } });
      expect(canceled.body.data.map((meeting) => meeting.id)).to.deep.equal([firstId]);
      const later = await admin.api.call<MeetingList>('listMeetings', { query: { startsFrom: new Date(windowStart + 24 * hour).toISOString(), serviceId: service.id } });
      expect(later.body.data).to.have.length(1);
      const bad = await admin.api.call('listMeetings', { query: { state: 'done', kind: 'webinar' } });
      expect(bad.status).to.equal(400);
      expect((bad.problem.errors ?? []).map((error) => error.parameter)).to.have.members(['state', 'kind']);
      const cursorFromOtherFilter = (await admin.api.call<MeetingList>('listMeetings', { query: { ...window, limit: 1 } })).body.nextCursor ?? '';
      expect((await admin.api.call('listMeetings', { query: { ...window, limit: 1, kind: 'consulting', cursor: cursorFromOtherFilter } })).problem.code).to.equal('invalid_cursor');
    });

    it('confirms an available consulting meeting (scheduled, by the operator) and refuses every other case with 409 invalid_state_transition', async () => {
      const service = await createService();
      const meeting = await openMeeting(service.id, { startsAt: '2031-06-01T10:00:00Z' });
      const path = { meetingId: String(meeting.id) };
      const confirmed = await admin.api.call<MeetingWithSeats>('confirmMeeting', { path, body: { roomUrl: 'https://meet.example/r/confirmed' } });
      expect(confirmed.status, confirmed.text).to.equal(200);
      expect(confirmed.body).to.include({ state: 'scheduled', confirmedByUserId: admin.operator.id, roomUrl: 'https://meet.example/r/confirmed' });
      expect(Date.parse(confirmed.body.confirmedAt ?? '')).to.be.closeTo(Date.now(), 60_000);
      expect(confirmed.headers.get('etag')).to.equal('"v2"');
      const again = await admin.api.call('confirmMeeting', { path });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('invalid_state_transition');
      expect(again.problem.detail).to.contain('scheduled');

      const plain = await openMeeting(service.id, { startsAt: '2031-06-02T10:00:00Z', roomUrl: 'https://meet.example/r/kept' });
      const withoutBody = await admin.api.call<MeetingWithSeats>('confirmMeeting', { path: { meetingId: String(plain.id) } });
      expect(withoutBody.body).to.include({ state: 'scheduled', roomUrl: 'https://meet.example/r/kept' });

      const { meetingId: groupMeeting } = await makeStudyGroupMeeting(admin.db, admin.server.siteA, [admin.operator], new Date('2031-06-03T10:00:00Z'));
      const group = await admin.api.call('confirmMeeting', { path: { meetingId: String(groupMeeting) } });
      expect(group.status).to.equal(409);
      expect(group.problem.code).to.equal('invalid_state_transition');
      expect(group.problem.detail).to.contain('study-group');

      const dropped = await openMeeting(service.id, { startsAt: '2031-06-04T10:00:00Z' });
      await admin.api.call('cancelMeeting', { path: { meetingId: String(dropped.id) } });
      const canceled = await admin.api.call('confirmMeeting', { path: { meetingId: String(dropped.id) } });
      expect(canceled.status).to.equal(409);
      expect(canceled.problem.detail).to.contain('canceled');

      const badBody = await admin.api.call('confirmMeeting', { path: { meetingId: String(dropped.id) }, body: { roomUrl: 'not a url', note: 1 } });
      expect(badBody.status).to.equal(400);
      expect(pointers(badBody)).to.have.members(['/roomUrl', '/note']);
      expect((await admin.api.call('confirmMeeting', { path: { meetingId: '987654' } })).status).to.equal(404);
    });

    it('cancels available and scheduled meetings of either kind, keeping seats; a canceled one cannot be canceled again', async () => {
      const service = await createService();
      const meeting = await openMeeting(service.id, { startsAt: '2031-07-01T10:00:00Z' });
      await addSeat(admin.db, meeting.id, await makeUser(admin.db, admin.server.siteA, ['student'], 'Kept Seat'), new Date());
      await admin.api.call('confirmMeeting', { path: { meetingId: String(meeting.id) } });
      const canceled = await admin.api.call<MeetingWithSeats>('cancelMeeting', { path: { meetingId: String(meeting.id) }, body: { reason: 'Lecturer ill' } });
      expect(canceled.status, canceled.text).to.equal(200);
      expect(canceled.body).to.include({ state: 'canceled', cancelReason: 'Lecturer ill', attendeesCount: 1 });
      expect(canceled.body.canceledAt).to.be.a('string');
      expect(canceled.body.seats).to.have.length(1);
      expect(canceled.headers.get('etag')).to.equal('"v3"');
      const again = await admin.api.call('cancelMeeting', { path: { meetingId: String(meeting.id) } });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('invalid_state_transition');
      expect(again.problem.detail).to.contain('canceled');
      const { meetingId: groupMeeting } = await makeStudyGroupMeeting(admin.db, admin.server.siteA, [admin.operator], new Date('2031-07-02T10:00:00Z'));
      const group = await admin.api.call<MeetingWithSeats>('cancelMeeting', { path: { meetingId: String(groupMeeting) } });
      expect(group.body).to.include({ state: 'canceled', cancelReason: null, kind: 'study_group' });
    });

    it('shows an admin-confirmed meeting as scheduled, and a canceled one as canceled with roomUrl "", in viewer.consultingMeetings', async () => {
      const service = await createService();
      const now = Date.now();
      // Live now, so the member sees the room link until it is canceled.
      const meeting = await openMeeting(service.id, { startsAt: new Date(now - 10 * MINUTE).toISOString(), endsAt: new Date(now + 50 * MINUTE).toISOString() });
      const mia = await makeUser(admin.db, admin.server.siteA, ['student'], 'Mia Member');
      await addSeat(admin.db, meeting.id, mia, new Date(now - 60 * MINUTE));
      const token = await memberToken(admin.db, admin.server.siteA, mia, 'openid account:read');
      const nodeId = encodeNodeId('ConsultingMeeting', meeting.id);
      async function seenByMember(): Promise<{ id: string; state: string; roomUrl: string; attendeesCount: number } | undefined> {
        const result = await gql<{ viewer: { consultingMeetings: { nodes: Array<{ id: string; state: string; roomUrl: string; attendeesCount: number }> } } }>(
          admin.server.siteA.origin,
          'A',
          token,
          '{ viewer { consultingMeetings(first: 50) { nodes { id state roomUrl attendeesCount } } } }',
        );
        expect(result.errors, JSON.stringify(result.errors)).to.equal(undefined);
        return result.data?.viewer.consultingMeetings.nodes.find((node) => node.id === nodeId);
      }
      expect(await seenByMember()).to.deep.equal({ id: nodeId, state: 'available', roomUrl: '', attendeesCount: 1 });
      const confirmed = await admin.api.call<MeetingWithSeats>('confirmMeeting', { path: { meetingId: String(meeting.id) }, body: { roomUrl: 'https://meet.example/r/live' } });
      expect(confirmed.status).to.equal(200);
      const scheduled = await seenByMember();
      expect(scheduled).to.deep.equal({ id: nodeId, state: 'scheduled', roomUrl: 'https://meet.example/r/live', attendeesCount: confirmed.body.attendeesCount });
      expect(await admin.api.call<MeetingWithSeats>('cancelMeeting', { path: { meetingId: String(meeting.id) }, body: { reason: 'Room broken' } })).to.have.property('status', 200);
      expect(await seenByMember()).to.deep.equal({ id: nodeId, state: 'canceled', roomUrl: '', attendeesCount: 1 });
    });
  });

  describe('scopes and sites', () => {
    it('needs events:read to read and events:write to change (403 insufficient_scope)', async () => {
      const service = await createService();
      const slot = await createSlot(service.id);
      const meeting = await openMeeting(service.id, { startsAt: '2031-08-01T10:00:00Z' });
      const reader = admin.api.withToken((await issueToken(admin.db, admin.server.siteA, { scopes: ['events:read'] })).token);
      expect((await reader.call('listConsultingServices')).status).to.equal(200);
      expect((await reader.call('getMeeting', { path: { meetingId: String(meeting.id) } })).status).to.equal(200);
      const writes = [
        await reader.call('createConsultingService', { body: { title: 'X', durationMinutes: 30, capacity: 1 } }),
        await reader.call('updateConsultingService', { path: { serviceId: String(service.id) }, headers: { 'if-match': '"v1"' }, body: {} }),
        await reader.call('deleteConsultingService', { path: { serviceId: String(service.id) } }),
        await reader.call('createConsultingSlot', { path: { serviceId: String(service.id) }, body: { weekday: 1, startTime: '10:00' } }),
        await reader.call('updateConsultingSlot', { path: { serviceId: String(service.id), slotId: String(slot.id) }, headers: { 'if-match': '"v1"' }, body: {} }),
        await reader.call('deleteConsultingSlot', { path: { serviceId: String(service.id), slotId: String(slot.id) } }),
        await reader.call('createConsultingMeeting', { path: { serviceId: String(service.id) }, body: { startsAt: '2031-08-01T10:00:00Z' } }),
        await reader.call('confirmMeeting', { path: { meetingId: String(meeting.id) } }),
        await reader.call('cancelMeeting', { path: { meetingId: String(meeting.id) } }),
      ];
      for (const answer of writes) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
      }
      const school = admin.api.withToken((await issueToken(admin.db, admin.server.siteA, { scopes: ['school:read'] })).token);
      for (const answer of [await school.call('listMeetings'), await school.call('listConsultingSlots', { path: { serviceId: String(service.id) } })]) {
        expect(answer.status).to.equal(403);
        expect(answer.headers.get('www-authenticate')).to.contain('scope="events:read"');
      }
    });

    it("never shows one site's services, slots or meetings to another site's operator (404)", async () => {
      const service = await createService();
      const slot = await createSlot(service.id);
      const meeting = await openMeeting(service.id, { startsAt: '2031-09-01T10:00:00Z' });
      const servicePath = { serviceId: String(service.id) };
      const slotPath = { serviceId: String(service.id), slotId: String(slot.id) };
      const meetingPath = { meetingId: String(meeting.id) };
      const answers = [
        await admin.apiB.call('getConsultingService', { path: servicePath }),
        await admin.apiB.call('updateConsultingService', { path: servicePath, headers: { 'if-match': '"v1"' }, body: { title: 'Mine' } }),
        await admin.apiB.call('deleteConsultingService', { path: servicePath }),
        await admin.apiB.call('listConsultingSlots', { path: servicePath }),
        await admin.apiB.call('createConsultingSlot', { path: servicePath, body: { weekday: 1, startTime: '10:00' } }),
        await admin.apiB.call('getConsultingSlot', { path: slotPath }),
        await admin.apiB.call('updateConsultingSlot', { path: slotPath, headers: { 'if-match': '"v1"' }, body: { weekday: 2 } }),
        await admin.apiB.call('deleteConsultingSlot', { path: slotPath }),
        await admin.apiB.call('createConsultingMeeting', { path: servicePath, body: { startsAt: '2031-09-01T10:00:00Z' } }),
        await admin.apiB.call('getMeeting', { path: meetingPath }),
        await admin.apiB.call('confirmMeeting', { path: meetingPath }),
        await admin.apiB.call('cancelMeeting', { path: meetingPath }),
      ];
      for (const answer of answers) {
        expect(answer.status, answer.text).to.equal(404);
        expect(answer.problem.code).to.equal('not_found');
      }
      const services = await admin.apiB.call<ServiceList>('listConsultingServices', { query: { limit: 100 } });
      expect(services.body.data.map((item) => item.id)).to.not.include(service.id);
      const meetings = await admin.apiB.call<MeetingList>('listMeetings', { query: { limit: 100, serviceId: service.id } });
      expect(meetings.body.data).to.deep.equal([]);
      // Nothing changed at site A.
      expect((await admin.api.call<MeetingWithSeats>('getMeeting', { path: meetingPath })).body.state).to.equal('available');
      expect((await admin.api.call('getConsultingSlot', { path: slotPath })).status).to.equal(200);
      // A slot is found only under its own service.
      const otherService = await createService();
      expect((await admin.api.call('getConsultingSlot', { path: { serviceId: String(otherService.id), slotId: String(slot.id) } })).status).to.equal(404);
    });
  });
});
