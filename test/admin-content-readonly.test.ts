import { expect } from 'chai';
import type { User } from '../src/accounts/users.js';
import { issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';
import { CONTENT_SCOPES, ids, walkList } from './admin-content-fixtures.js';

type Comment = Schemas['Comment'];
type CommentList = Schemas['CommentList'];
type Form = Schemas['Form'];
type FormList = Schemas['FormList'];
type FormResponse = Schemas['FormResponse'];
type FormResponseList = Schemas['FormResponseList'];

const BASE = Date.parse('2026-03-01T10:00:00.000Z');
const at = (minutes: number): Date => new Date(BASE + minutes * 60_000);

describeEachDatabase('admin API: comments and forms (read-only)', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: CONTENT_SCOPES });
  let mia: User;
  let noah: User;
  /** Comment ids of site A, in creation order. */
  const commentIds: number[] = [];
  let commentB: number;
  let contactForm: number;
  let surveyForm: number;
  let formB: number;

  async function insertComment(siteId: number, user: User, targetKind: string, targetId: number, state: string, minutes: number): Promise<number> {
    const [id] = await scratch().db('comments').insert({ site_id: siteId, user_id: user.id, target_kind: targetKind, target_id: targetId, body: `${user.name} on ${targetKind} ${targetId}`, state, created_at: at(minutes), updated_at: at(minutes) });
    return Number(id);
  }

  before(async () => {
    const db = scratch().db;
    mia = await makeUser(db, admin.server.siteA, ['student'], 'Mia Member');
    noah = await makeUser(db, admin.server.siteA, ['student'], 'Noah Novice');
    const plan: Array<[User, string, number, string]> = [
      [mia, 'course', 1, 'visible'],
      [noah, 'course', 1, 'hidden'],
      [mia, 'lecture', 7, 'visible'],
      [noah, 'post', 3, 'visible'],
      [mia, 'post', 3, 'hidden'],
      [mia, 'post', 4, 'visible'],
      [noah, 'lecture', 7, 'visible'],
    ];
    // Two comments share a creation time: the id breaks the tie.
    for (const [index, [user, kind, target, state]] of plan.entries()) commentIds.push(await insertComment(admin.server.siteA.id, user, kind, target, state, index === 6 ? 5 : index));
    commentB = await insertComment(admin.server.siteB.id, await makeUser(db, admin.server.siteB, ['student'], 'Bea'), 'course', 1, 'visible', 0);

    const fields = JSON.stringify([
      { name: 'email', label: 'Email', type: 'email', required: true },
      { name: 'topics', label: 'Topics', type: 'checkbox', required: false },
      { name: 'message', label: 'Message', type: 'textarea' },
    ]);
    [contactForm] = (await db('forms').insert({ site_id: admin.server.siteA.id, title: 'Contact', fields, created_at: at(0), updated_at: at(0) })).map(Number) as [number];
    [surveyForm] = (await db('forms').insert({ site_id: admin.server.siteA.id, title: 'Survey', fields: 'not json', created_at: at(1), updated_at: at(2) })).map(Number) as [number];
    [formB] = (await db('forms').insert({ site_id: admin.server.siteB.id, title: 'B form', fields: '[]', created_at: at(0), updated_at: at(0) })).map(Number) as [number];
    const responses = [
      { user_id: mia.id, answers: JSON.stringify({ message: 'Hi', email: 'mia@example.com', topics: ['design', 'code'] }), submitted_at: at(10) },
      { user_id: null, answers: JSON.stringify({ email: 'anon@example.com', legacy: 42 }), submitted_at: at(12) },
      { user_id: noah.id, answers: JSON.stringify({ email: 'noah@example.com', message: null }), submitted_at: at(11) },
    ];
    for (const response of responses) await db('form_responses').insert({ form_id: contactForm, ...response });
    await db('form_responses').insert({ form_id: formB, user_id: null, answers: '{}', submitted_at: at(1) });
  });

  describe('comments', () => {
    it('lists newest first with authors, across pages, and in creation order with sort=createdAt', async () => {
      const newest = await walkList<Comment>(admin.api, 'listComments', { limit: 3 });
      const expected = commentIds.map((id, index) => ({ id, minutes: index === 6 ? 5 : index })).sort((a, b) => b.minutes - a.minutes || b.id - a.id);
      expect(ids(newest.rows)).to.deep.equal(expected.map((entry) => entry.id));
      expect(newest.pages).to.equal(3);
      const oldest = await walkList<Comment>(admin.api, 'listComments', { limit: 2, query: { sort: 'createdAt' } });
      expect(ids(oldest.rows)).to.deep.equal(ids(newest.rows).reverse());
      const first = oldest.rows[0];
      expect(first).to.deep.equal({
        id: commentIds[0],
        targetKind: 'course',
        targetId: 1,
        body: 'Mia Member on course 1',
        state: 'visible',
        author: { id: mia.id, name: 'Mia Member' },
        createdAt: at(0).toISOString(),
        updatedAt: at(0).toISOString(),
      });
      expect(ids(newest.rows)).to.not.include(commentB);
    });

    it('filters by target kind and id, state and author', async () => {
      const list = async (query: Record<string, string | number>): Promise<number[]> => ids((await walkList<Comment>(admin.api, 'listComments', { limit: 2, query: { sort: 'createdAt', ...query } })).rows);
      expect(await list({ targetKind: 'post' })).to.deep.equal([commentIds[3], commentIds[4], commentIds[5]]);
      expect(await list({ targetKind: 'post', targetId: 3 })).to.deep.equal([commentIds[3], commentIds[4]]);
      expect(await list({ targetId: 7 })).to.deep.equal([commentIds[2], commentIds[6]]);
      expect(await list({ state: 'hidden' })).to.deep.equal([commentIds[1], commentIds[4]]);
      expect(await list({ userId: noah.id })).to.deep.equal([commentIds[1], commentIds[3], commentIds[6]]);
      expect(await list({ userId: noah.id, state: 'visible', targetKind: 'lecture' })).to.deep.equal([commentIds[6]]);
      expect(await list({ targetKind: 'course', state: 'hidden', userId: mia.id })).to.deep.equal([]);
      for (const query of [{ targetKind: 'event' }, { state: 'deleted' }, { targetId: 0 }, { userId: 'me' }, { sort: 'updatedAt' }] as Array<Record<string, string | number>>) {
        const answer = await admin.api.call('listComments', { query });
        expect(answer.status, JSON.stringify(query)).to.equal(400);
        expect(answer.problem.errors?.[0]?.parameter).to.equal(Object.keys(query)[0]);
      }
      const page = await admin.api.call<CommentList>('listComments', { query: { limit: 1, state: 'visible' } });
      const cursor = page.body.nextCursor ?? '';
      expect((await admin.api.call('listComments', { query: { limit: 1, state: 'hidden', cursor } })).problem.code).to.equal('invalid_cursor');
    });

    it('gets one comment; another site\'s is 404; comments:read is needed', async () => {
      const answer = await admin.api.call<Comment>('getComment', { path: { commentId: String(commentIds[3]) } });
      expect(answer.status).to.equal(200);
      expect(answer.body).to.include({ targetKind: 'post', targetId: 3, state: 'visible' });
      expect(answer.body.author).to.deep.equal({ id: noah.id, name: 'Noah Novice' });
      expect((await admin.api.call('getComment', { path: { commentId: String(commentB) } })).status).to.equal(404);
      expect((await admin.apiB.call('getComment', { path: { commentId: String(commentIds[3]) } })).status).to.equal(404);
      expect((await admin.apiB.call<Comment>('getComment', { path: { commentId: String(commentB) } })).body.author.name).to.equal('Bea');
      const other = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['posts:read', 'forms:read'] })).token);
      for (const answer of [await other.call('listComments'), await other.call('getComment', { path: { commentId: String(commentIds[0]) } })]) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
      }
    });
  });

  describe('forms', () => {
    it('lists forms with their fields and response counts, paginated and sorted', async () => {
      const all = await walkList<Form>(admin.api, 'listForms', { limit: 1 });
      expect(ids(all.rows)).to.deep.equal([surveyForm, contactForm]);
      expect(all.rows[1]).to.deep.equal({
        id: contactForm,
        title: 'Contact',
        fields: [
          { name: 'email', label: 'Email', type: 'email', required: true },
          { name: 'topics', label: 'Topics', type: 'checkbox', required: false },
          { name: 'message', label: 'Message', type: 'textarea', required: false },
        ],
        responseCount: 3,
        createdAt: at(0).toISOString(),
        updatedAt: at(0).toISOString(),
      });
      // A form whose fields column is not JSON lists with no fields rather than failing.
      expect(all.rows[0]).to.include({ title: 'Survey', responseCount: 0 });
      expect(all.rows[0]?.fields).to.deep.equal([]);
      expect(ids((await admin.api.call<FormList>('listForms', { query: { sort: 'title' } })).body.data)).to.deep.equal([contactForm, surveyForm]);
      expect(ids((await admin.api.call<FormList>('listForms', { query: { sort: '-title' } })).body.data)).to.deep.equal([surveyForm, contactForm]);
      expect(ids((await admin.api.call<FormList>('listForms', { query: { sort: 'updatedAt' } })).body.data)).to.deep.equal([contactForm, surveyForm]);
      expect(ids((await admin.apiB.call<FormList>('listForms')).body.data)).to.deep.equal([formB]);
    });

    it('gets one form; another site\'s is 404', async () => {
      const answer = await admin.api.call<Form>('getForm', { path: { formId: String(contactForm) } });
      expect(answer.status).to.equal(200);
      expect(answer.body.responseCount).to.equal(3);
      expect(answer.body.fields.map((field) => field.name)).to.deep.equal(['email', 'topics', 'message']);
      expect((await admin.api.call('getForm', { path: { formId: String(formB) } })).status).to.equal(404);
      expect((await admin.apiB.call('getForm', { path: { formId: String(contactForm) } })).status).to.equal(404);
    });

    it('lists responses newest first with parsed answers and respondents, across pages', async () => {
      const path = { formId: String(contactForm) };
      const { rows } = await walkList<FormResponse>(admin.api, 'listFormResponses', { path, limit: 2 });
      expect(rows.map((row) => row.submittedAt)).to.deep.equal([at(12), at(11), at(10)].map((date) => date.toISOString()));
      const [anonymous, noahs, mias] = rows;
      expect(anonymous?.respondent).to.equal(null);
      expect(anonymous?.answers).to.deep.equal([
        { name: 'email', label: 'Email', value: 'anon@example.com' },
        { name: 'legacy', label: null, value: 42 },
      ]);
      expect(noahs?.respondent).to.deep.equal({ id: noah.id, name: 'Noah Novice' });
      expect(noahs?.answers).to.deep.equal([
        { name: 'email', label: 'Email', value: 'noah@example.com' },
        { name: 'message', label: 'Message', value: null },
      ]);
      expect(mias?.answers).to.deep.equal([
        { name: 'email', label: 'Email', value: 'mia@example.com' },
        { name: 'topics', label: 'Topics', value: ['design', 'code'] },
        { name: 'message', label: 'Message', value: 'Hi' },
      ]);
      expect(mias?.formId).to.equal(contactForm);
      const oldest = await admin.api.call<FormResponseList>('listFormResponses', { path, query: { sort: 'submittedAt' } });
      expect(ids(oldest.body.data)).to.deep.equal(ids(rows).reverse());
      const empty = await admin.api.call<FormResponseList>('listFormResponses', { path: { formId: String(surveyForm) } });
      expect(empty.body).to.deep.equal({ data: [], nextCursor: null });
    });

    it('keeps other sites\' responses and cursors apart, and needs forms:read', async () => {
      expect((await admin.api.call('listFormResponses', { path: { formId: String(formB) } })).status).to.equal(404);
      expect((await admin.apiB.call('listFormResponses', { path: { formId: String(contactForm) } })).status).to.equal(404);
      const page = await admin.api.call<FormResponseList>('listFormResponses', { path: { formId: String(contactForm) }, query: { limit: 1 } });
      const cursor = page.body.nextCursor ?? '';
      expect(cursor).to.not.equal('');
      // A cursor of one form's responses is not one of another form's.
      expect((await admin.api.call('listFormResponses', { path: { formId: String(surveyForm) }, query: { cursor } })).problem.code).to.equal('invalid_cursor');
      const other = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['comments:read'] })).token);
      for (const answer of [await other.call('listForms'), await other.call('getForm', { path: { formId: String(contactForm) } }), await other.call('listFormResponses', { path: { formId: String(contactForm) } })]) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
      }
    });
  });
});
