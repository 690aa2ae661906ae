import { expect } from 'chai';
import { issueToken, type Schemas } from './support/admin.js';
import { useAdminApi } from './support/admin-fixture.js';
import { describeEachDatabase } from './support/databases.js';
import { makeUser } from './support/oauth-fixtures.js';
import { CONTENT_SCOPES, ids, walkList } from './admin-content-fixtures.js';

type Appearance = Schemas['Appearance'];
type Post = Schemas['Post'];
type PostList = Schemas['PostList'];
type Page = Schemas['Page'];
type PageList = Schemas['PageList'];

function pointers(answer: { problem: { errors?: Array<{ pointer?: string }> } }): Array<string | undefined> {
  return (answer.problem.errors ?? []).map((error) => error.pointer);
}

describeEachDatabase('admin API: appearance, posts and pages', (scratch) => {
  const admin = useAdminApi(scratch, { scopes: CONTENT_SCOPES });

  describe('appearance', () => {
    it('shows the defaults of a site that never changed it, with ETag "v0"', async () => {
      const answer = await admin.api.call<Appearance>('getAppearance');
      expect(answer.status).to.equal(200);
      expect(answer.headers.get('etag')).to.equal('"v0"');
      expect(answer.body).to.deep.equal({
        primaryColor: null,
        accentColor: null,
        logoUrl: null,
        faviconUrl: null,
        coverImageUrl: null,
        customCss: null,
        customized: false,
        createdAt: admin.server.siteA.createdAt.toISOString(),
        updatedAt: admin.server.siteA.createdAt.toISOString(),
      });
    });

    it('needs If-Match (428), refuses a stale one (412), and creates the row from "v0"', async () => {
      const missing = await admin.api.call('updateAppearance', { body: { primaryColor: '#112233' } });
      expect(missing.status).to.equal(428);
      const stale = await admin.api.call('updateAppearance', { headers: { 'if-match': '"v1"' }, body: { primaryColor: '#112233' } });
      expect(stale.status).to.equal(412);
      expect((await admin.api.call<Appearance>('getAppearance')).body.customized).to.equal(false);

      const first = await admin.api.call<Appearance>('updateAppearance', {
        headers: { 'if-match': '"v0"' },
        contentType: 'application/merge-patch+json',
        body: { primaryColor: '#1F3A5F', logoUrl: 'https://cdn.example/logo.png', customCss: 'body { color: #111; }' },
      });
      expect(first.status, first.text).to.equal(200);
      expect(first.headers.get('etag')).to.equal('"v1"');
      expect(first.body).to.include({ primaryColor: '#1f3a5f', accentColor: null, logoUrl: 'https://cdn.example/logo.png', customCss: 'body { color: #111; }', customized: true });
      const read = await admin.api.call<Appearance>('getAppearance');
      expect(read.body).to.deep.equal(first.body);
      expect(read.headers.get('etag')).to.equal('"v1"');

      // The defaults' ETag is stale now.
      expect((await admin.api.call('updateAppearance', { headers: { 'if-match': '"v0"' }, body: { accentColor: '#000000' } })).status).to.equal(412);
      // null goes back to the default; an empty patch keeps the ETag.
      const cleared = await admin.api.call<Appearance>('updateAppearance', { headers: { 'if-match': '"v1"' }, body: { logoUrl: null, accentColor: '#f2a541' } });
      expect(cleared.status).to.equal(200);
      expect(cleared.body).to.include({ logoUrl: null, accentColor: '#f2a541', primaryColor: '#1f3a5f' });
      expect(cleared.headers.get('etag')).to.equal('"v2"');
      const empty = await admin.api.call<Appearance>('updateAppearance', { headers: { 'if-match': '"v2"' }, body: {} });
      expect(empty.status).to.equal(200);
      expect(empty.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updateAppearance', { headers: { 'if-match': '"v1"' }, body: {} })).status).to.equal(412);
    });

    it('lets exactly one of two first writers based on "v0" win', async () => {
      const db = scratch().db;
      await db('site_appearance').where({ site_id: admin.server.siteB.id }).delete();
      const answers = await Promise.all(
        ['#aa0000', '#00aa00', '#0000aa'].map((color) => admin.apiB.call<Appearance>('updateAppearance', { headers: { 'if-match': '"v0"' }, body: { primaryColor: color } })),
      );
      expect(answers.map((answer) => answer.status).sort()).to.deep.equal([200, 412, 412]);
      const winner = answers.find((answer) => answer.status === 200);
      const stored = await admin.apiB.call<Appearance>('getAppearance');
      expect(stored.body.primaryColor).to.equal(winner?.body.primaryColor);
      expect(stored.headers.get('etag')).to.equal('"v1"');
    });

    it('refuses bad colours, non-https URLs, closing style tags and unknown members, with pointers', async () => {
      const current = await admin.api.call<Appearance>('getAppearance');
      const etag = current.headers.get('etag') ?? '';
      const bad = await admin.api.call('updateAppearance', {
        headers: { 'if-match': etag },
        body: { primaryColor: '#abc', accentColor: 'red', logoUrl: 'http://cdn.example/logo.png', faviconUrl: 'not a url', font: 'Comic Sans' },
      });
      expect(bad.status).to.equal(400);
      expect(bad.problem.code).to.equal('invalid_request');
      expect(pointers(bad)).to.include.members(['/primaryColor', '/accentColor', '/logoUrl', '/faviconUrl', '/font']);
      const css = await admin.api.call('updateAppearance', { headers: { 'if-match': etag }, body: { customCss: 'a{}</STYLE><script>alert(1)</script>' } });
      expect(css.status).to.equal(400);
      expect(pointers(css)).to.deep.equal(['/customCss']);
      const long = await admin.api.call('updateAppearance', { headers: { 'if-match': etag }, body: { customCss: 'a'.repeat(16384) } });
      expect(long.status).to.equal(400);
      expect(pointers(long)).to.deep.equal(['/customCss']);
      const text = await admin.api.call('updateAppearance', { headers: { 'if-match': etag }, rawBody: 'primaryColor=#000000', contentType: 'text/plain' });
      expect(text.status).to.equal(415);
      expect((await admin.api.call<Appearance>('getAppearance')).headers.get('etag')).to.equal(etag);
    });

    it('needs appearance:write to change and appearance:read to read, and each site sees its own', async () => {
      const readOnly = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['appearance:read'] })).token);
      expect((await readOnly.call('getAppearance')).status).to.equal(200);
      const refused = await readOnly.call('updateAppearance', { headers: { 'if-match': '"v2"' }, body: { primaryColor: '#000000' } });
      expect(refused.status).to.equal(403);
      expect(refused.problem.code).to.equal('insufficient_scope');
      const noScope = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['posts:read'] })).token);
      expect((await noScope.call('getAppearance')).problem.code).to.equal('insufficient_scope');
      const fromA = await admin.api.call<Appearance>('getAppearance');
      const fromB = await admin.apiB.call<Appearance>('getAppearance');
      expect(fromB.body.primaryColor).to.not.equal(fromA.body.primaryColor);
    });
  });

  describe('posts', () => {
    async function createPost(body: Record<string, unknown>, client = admin.api): Promise<Post> {
      const answer = await client.call<Post>('createPost', { body });
      expect(answer.status, answer.text).to.equal(201);
      return answer.body;
    }

    it('creates a draft by the operator, with ETag and Location, and reads it back', async () => {
      const answer = await admin.api.call<Post>('createPost', { body: { slug: 'hello-world', title: 'Hello world', body: 'First post.' } });
      expect(answer.status).to.equal(201);
      expect(answer.body).to.include({ slug: 'hello-world', title: 'Hello world', body: 'First post.', status: 'draft', publishedAt: null });
      expect(answer.body.author).to.deep.equal({ id: admin.operator.id, name: 'Olive Operator' });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/posts/${answer.body.id}`);
      const read = await admin.api.call<Post>('getPost', { path: { postId: String(answer.body.id) } });
      expect(read.status).to.equal(200);
      expect(read.body).to.deep.equal(answer.body);
      expect(read.headers.get('etag')).to.equal('"v1"');
    });

    it('takes another author of the site, refuses one from elsewhere, and keeps slugs unique per site', async () => {
      const lecturer = await makeUser(scratch().db, admin.server.siteA, ['lecturer'], 'Lena Lecturer');
      const outsider = await makeUser(scratch().db, admin.server.siteB, ['student'], 'Otto Outsider');
      const byLecturer = await createPost({ slug: 'by-lena', title: 'By Lena', body: '', authorUserId: lecturer.id });
      expect(byLecturer.author).to.deep.equal({ id: lecturer.id, name: 'Lena Lecturer' });
      const foreign = await admin.api.call('createPost', { body: { slug: 'by-otto', title: 'By Otto', body: '', authorUserId: outsider.id } });
      expect(foreign.status).to.equal(400);
      expect(pointers(foreign)).to.deep.equal(['/authorUserId']);
      const taken = await admin.api.call('createPost', { body: { slug: 'hello-world', title: 'Again', body: '' } });
      expect(taken.status).to.equal(409);
      expect(taken.problem.code).to.equal('slug_taken');
      // Another site may use the same slug.
      expect((await createPost({ slug: 'hello-world', title: 'Hello from B', body: '' }, admin.apiB)).slug).to.equal('hello-world');
    });

    it('refuses invalid bodies with pointers, and non-JSON bodies with 415', async () => {
      const bad = await admin.api.call('createPost', { body: { slug: 'Not A Slug', title: '', body: 7, status: 'published' } });
      expect(bad.status).to.equal(400);
      expect(pointers(bad)).to.include.members(['/slug', '/title', '/body', '/status']);
      const missing = await admin.api.call('createPost', { body: {} });
      expect(pointers(missing)).to.include.members(['/slug', '/title', '/body']);
      const blank = await admin.api.call('createPost', { body: { slug: 'blank', title: '   ', body: '' } });
      expect(blank.status).to.equal(400);
      expect(pointers(blank)).to.deep.equal(['/title']);
      const text = await admin.api.call('createPost', { rawBody: 'hello', contentType: 'text/plain' });
      expect(text.status).to.equal(415);
    });

    it('updates with a merge patch at the current ETag only (412 stale, 428 missing, 409 slug_taken)', async () => {
      const post = await createPost({ slug: 'to-edit', title: 'To edit', body: 'v1' });
      const path = { postId: String(post.id) };
      expect((await admin.api.call('updatePost', { path, body: { title: 'x' } })).status).to.equal(428);
      const updated = await admin.api.call<Post>('updatePost', { path, headers: { 'if-match': '"v1"' }, contentType: 'application/merge-patch+json', body: { title: 'Edited', body: 'v2', authorUserId: null } });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body).to.include({ title: 'Edited', body: 'v2', slug: 'to-edit', author: null });
      expect(updated.headers.get('etag')).to.equal('"v2"');
      expect(Date.parse(updated.body.updatedAt)).to.be.at.least(Date.parse(post.updatedAt));
      const stale = await admin.api.call('updatePost', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Lost update' } });
      expect(stale.status).to.equal(412);
      expect(stale.problem.code).to.equal('precondition_failed');
      const taken = await admin.api.call('updatePost', { path, headers: { 'if-match': '"v2"' }, body: { slug: 'hello-world' } });
      expect(taken.status).to.equal(409);
      expect(taken.problem.code).to.equal('slug_taken');
      const unknown = await admin.api.call('updatePost', { path, headers: { 'if-match': '"v2"' }, body: { status: 'published' } });
      expect(unknown.status).to.equal(400);
      expect(pointers(unknown)).to.deep.equal(['/status']);
      const empty = await admin.api.call<Post>('updatePost', { path, headers: { 'if-match': '"v2"' }, body: {} });
      expect(empty.headers.get('etag')).to.equal('"v2"');
      const renamed = await admin.api.call<Post>('updatePost', { path, headers: { 'if-match': '"v2"' }, body: { slug: 'edited', authorUserId: admin.operator.id } });
      expect(renamed.body).to.include({ slug: 'edited' });
      expect(renamed.body.author?.id).to.equal(admin.operator.id);
      expect((await admin.api.call<Post>('getPost', { path })).body).to.deep.equal(renamed.body);
    });

    it('publishes and unpublishes as state transitions, keeping the first publication time', async () => {
      const post = await createPost({ slug: 'news', title: 'News', body: '' });
      const path = { postId: String(post.id) };
      const unpublishDraft = await admin.api.call('unpublishPost', { path });
      expect(unpublishDraft.status).to.equal(409);
      expect(unpublishDraft.problem.code).to.equal('invalid_state_transition');
      expect(unpublishDraft.problem.detail).to.contain('draft');
      const published = await admin.api.call<Post>('publishPost', { path });
      expect(published.status).to.equal(200);
      expect(published.body.status).to.equal('published');
      expect(published.body.publishedAt).to.be.a('string');
      expect(published.headers.get('etag')).to.equal('"v2"');
      const again = await admin.api.call('publishPost', { path });
      expect(again.status).to.equal(409);
      expect(again.problem.code).to.equal('invalid_state_transition');
      expect(again.problem.detail).to.contain('already published');
      const unpublished = await admin.api.call<Post>('unpublishPost', { path });
      expect(unpublished.body).to.include({ status: 'draft', publishedAt: published.body.publishedAt });
      await new Promise((resolve) => setTimeout(resolve, 5));
      const republished = await admin.api.call<Post>('publishPost', { path });
      expect(republished.body).to.include({ status: 'published', publishedAt: published.body.publishedAt });
      expect(republished.headers.get('etag')).to.equal('"v4"');
      expect((await admin.api.call('publishPost', { path, body: { now: true } })).status).to.equal(400);
    });

    it('refuses to delete a post members commented on (409 post_has_comments), deletes one without', async () => {
      const db = scratch().db;
      const post = await createPost({ slug: 'discussed', title: 'Discussed', body: '' });
      const member = await makeUser(db, admin.server.siteA, ['student'], 'Mia Member');
      const now = new Date();
      await db('comments').insert({ site_id: admin.server.siteA.id, user_id: member.id, target_kind: 'post', target_id: post.id, body: 'Nice!', state: 'hidden', created_at: now, updated_at: now });
      // A comment on a course with the same id does not count.
      const quiet = await createPost({ slug: 'quiet', title: 'Quiet', body: '' });
      await db('comments').insert({ site_id: admin.server.siteA.id, user_id: member.id, target_kind: 'course', target_id: quiet.id, body: 'Other', state: 'visible', created_at: now, updated_at: now });
      const refused = await admin.api.call('deletePost', { path: { postId: String(post.id) } });
      expect(refused.status).to.equal(409);
      expect(refused.problem.code).to.equal('post_has_comments');
      expect(refused.problem.detail).to.contain('Unpublish');
      expect((await admin.api.call('getPost', { path: { postId: String(post.id) } })).status).to.equal(200);
      expect((await admin.api.call('deletePost', { path: { postId: String(quiet.id) } })).status).to.equal(204);
      expect((await admin.api.call('getPost', { path: { postId: String(quiet.id) } })).status).to.equal(404);
      expect((await admin.api.call('deletePost', { path: { postId: String(quiet.id) } })).status).to.equal(404);
    });

    it('hides every post of site A from site B (404), and needs posts:write to change', async () => {
      const post = await createPost({ slug: 'private-to-a', title: 'A only', body: '' });
      const path = { postId: String(post.id) };
      for (const answer of [
        await admin.apiB.call('getPost', { path }),
        await admin.apiB.call('updatePost', { path, headers: { 'if-match': '"v1"' }, body: { title: 'Hijacked' } }),
        await admin.apiB.call('publishPost', { path }),
        await admin.apiB.call('unpublishPost', { path }),
        await admin.apiB.call('deletePost', { path }),
      ]) {
        expect(answer.status).to.equal(404);
        expect(answer.problem.code).to.equal('not_found');
      }
      expect((await admin.apiB.call<PostList>('listPosts', { query: { limit: 100 } })).body.data.map((row) => row.slug)).to.not.include('private-to-a');
      expect((await admin.api.call<Post>('getPost', { path })).body.title).to.equal('A only');
      const reader = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['posts:read'] })).token);
      expect((await reader.call('getPost', { path })).status).to.equal(200);
      for (const answer of [await reader.call('createPost', { body: { slug: 'nope', title: 'Nope', body: '' } }), await reader.call('publishPost', { path }), await reader.call('deletePost', { path })]) {
        expect(answer.status).to.equal(403);
        expect(answer.problem.code).to.equal('insufficient_scope');
      }
      expect((await admin.api.call('getPost', { path: { postId: '0' } })).status).to.equal(400);
    });

    it('lists with keyset pagination, filters and every sort', async () => {
      // Three published posts, published one after another.
      for (const [slug, title] of [
        ['list-charlie', 'Charlie 100% sure'],
        ['list-alpha', 'Alpha under_score'],
        ['list-bravo', 'Bravo'],
      ] as const) {
        const post = await createPost({ slug, title, body: `Body of ${slug}` });
        await admin.api.call('publishPost', { path: { postId: String(post.id) } });
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const all = await walkList<Post>(admin.api, 'listPosts', { limit: 3 });
      expect(all.pages).to.be.greaterThan(1);
      const expected = (await scratch().db('posts').where({ site_id: admin.server.siteA.id }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).select('id')) as Array<{ id: number }>;
      expect(ids(all.rows)).to.deep.equal(expected.map((row) => Number(row.id)));

      const ascending = await walkList<Post>(admin.api, 'listPosts', { limit: 4, query: { sort: 'createdAt' } });
      expect(ids(ascending.rows)).to.deep.equal([...ids(all.rows)].reverse());

      const published = await walkList<Post>(admin.api, 'listPosts', { limit: 2, query: { status: 'published' } });
      expect(published.rows.length).to.be.greaterThan(0);
      expect(published.rows.every((post) => post.status === 'published')).to.equal(true);
      const drafts = await walkList<Post>(admin.api, 'listPosts', { limit: 2, query: { status: 'draft' } });
      expect(drafts.rows.every((post) => post.status === 'draft')).to.equal(true);
      expect(published.rows.length + drafts.rows.length).to.equal(all.rows.length);

      const byPublication = await walkList<Post>(admin.api, 'listPosts', { limit: 2, query: { status: 'published', sort: '-publishedAt' } });
      const times = byPublication.rows.map((post) => Date.parse(post.publishedAt ?? ''));
      expect(times).to.deep.equal([...times].sort((a, b) => b - a));
      expect(byPublication.rows.slice(0, 3).map((post) => post.slug)).to.deep.equal(['list-bravo', 'list-alpha', 'list-charlie']);
      const noStatus = await admin.api.call('listPosts', { query: { sort: 'publishedAt' } });
      expect(noStatus.status).to.equal(400);
      expect(noStatus.problem.errors).to.deep.equal([{ parameter: 'sort', message: 'publishedAt needs status=published' }]);

      const byTitle = await walkList<Post>(admin.api, 'listPosts', { limit: 2, query: { q: 'list-', sort: 'title' } });
      expect(byTitle.rows.map((post) => post.slug)).to.deep.equal(['list-alpha', 'list-bravo', 'list-charlie']);
      const byTitleDesc = await admin.api.call<PostList>('listPosts', { query: { q: 'LIST-', sort: '-title' } });
      expect(byTitleDesc.body.data.map((post) => post.slug)).to.deep.equal(['list-charlie', 'list-bravo', 'list-alpha']);

      // q is a case-insensitive substring of the title or body; % and _ are literal.
      expect((await admin.api.call<PostList>('listPosts', { query: { q: 'BRAVO' } })).body.data.map((post) => post.slug)).to.deep.equal(['list-bravo']);
      expect((await admin.api.call<PostList>('listPosts', { query: { q: '100%' } })).body.data.map((post) => post.slug)).to.deep.equal(['list-charlie']);
      expect((await admin.api.call<PostList>('listPosts', { query: { q: 'br_vo' } })).body.data).to.deep.equal([]);
      expect((await admin.api.call<PostList>('listPosts', { query: { q: 'br_vo' } })).body.nextCursor).to.equal(null);
      expect((await admin.api.call<PostList>('listPosts', { query: { q: 'under_' } })).body.data.map((post) => post.slug)).to.deep.equal(['list-alpha']);

      const byUpdate = await walkList<Post>(admin.api, 'listPosts', { limit: 5, query: { sort: '-updatedAt' } });
      const updates = byUpdate.rows.map((post) => Date.parse(post.updatedAt));
      expect(updates).to.deep.equal([...updates].sort((a, b) => b - a));
      expect(byUpdate.rows).to.have.length(all.rows.length);
    });

    it('refuses foreign cursors, cursors of another sort or filter, and unknown parameters', async () => {
      const first = await admin.api.call<PostList>('listPosts', { query: { limit: 1 } });
      const cursor = first.body.nextCursor ?? '';
      expect(cursor).to.not.equal('');
      for (const query of [{ cursor: 'garbage' }, { cursor, sort: 'title' }, { cursor, status: 'draft' }, { cursor, q: 'x' }] as Array<Record<string, string>>) {
        const answer = await admin.api.call('listPosts', { query: { limit: 1, ...query } });
        expect(answer.status).to.equal(400);
        expect(answer.problem.code).to.equal('invalid_cursor');
      }
      expect((await admin.api.call('listPosts', { query: { limit: 1, cursor } })).status).to.equal(200);
      const unknown = await admin.api.call('listPosts', { query: { author: 'me' } });
      expect(unknown.status).to.equal(400);
      expect((await admin.api.call('listPosts', { query: { status: 'archived' } })).status).to.equal(400);
      expect((await admin.api.call('listPosts', { query: { sort: 'slug' } })).status).to.equal(400);
    });
  });

  describe('pages', () => {
    async function createPage(body: Record<string, unknown>): Promise<Page> {
      const answer = await admin.api.call<Page>('createPage', { body });
      expect(answer.status, answer.text).to.equal(201);
      return answer.body;
    }

    it('creates drafts or published pages with ETag and Location; slugs are unique per site (409 slug_taken)', async () => {
      const answer = await admin.api.call<Page>('createPage', { body: { slug: 'about', title: 'About us', body: 'We teach.' } });
      expect(answer.status).to.equal(201);
      expect(answer.body).to.include({ slug: 'about', title: 'About us', body: 'We teach.', status: 'draft' });
      expect(answer.headers.get('etag')).to.equal('"v1"');
      expect(answer.headers.get('location')).to.equal(`${admin.server.siteA.origin}/api/admin/v1/pages/${answer.body.id}`);
      expect((await admin.api.call<Page>('getPage', { path: { pageId: String(answer.body.id) } })).body).to.deep.equal(answer.body);
      const terms = await createPage({ slug: 'terms', title: 'Terms', body: '...', status: 'published' });
      expect(terms.status).to.equal('published');
      const taken = await admin.api.call('createPage', { body: { slug: 'about', title: 'About again', body: '' } });
      expect(taken.status).to.equal(409);
      expect(taken.problem.code).to.equal('slug_taken');
      expect((await admin.apiB.call('createPage', { body: { slug: 'about', title: 'About B', body: '' } })).status).to.equal(201);
      const bad = await admin.api.call('createPage', { body: { slug: '-bad-', title: 'x'.repeat(256), body: '', status: 'hidden', extra: 1 } });
      expect(bad.status).to.equal(400);
      expect(pointers(bad)).to.include.members(['/slug', '/title', '/status', '/extra']);
    });

    it('updates slug, title, body and status at the current ETag, and deletes', async () => {
      const page = await createPage({ slug: 'faq', title: 'FAQ', body: 'Q?' });
      const path = { pageId: String(page.id) };
      expect((await admin.api.call('updatePage', { path, body: { status: 'published' } })).status).to.equal(428);
      const updated = await admin.api.call<Page>('updatePage', { path, headers: { 'if-match': '"v1"' }, body: { status: 'published', body: 'Q? A.' } });
      expect(updated.status).to.equal(200);
      expect(updated.body).to.include({ status: 'published', body: 'Q? A.', slug: 'faq' });
      expect(updated.headers.get('etag')).to.equal('"v2"');
      expect((await admin.api.call('updatePage', { path, headers: { 'if-match': '"v1"' }, body: { status: 'draft' } })).status).to.equal(412);
      const taken = await admin.api.call('updatePage', { path, headers: { 'if-match': '"v2"' }, body: { slug: 'about' } });
      expect(taken.status).to.equal(409);
      expect(taken.problem.code).to.equal('slug_taken');
      const renamed = await admin.api.call<Page>('updatePage', { path, headers: { 'if-match': '"v2"' }, contentType: 'application/merge-patch+json', body: { slug: 'help', title: 'Help' } });
      expect(renamed.body).to.include({ slug: 'help', title: 'Help' });
      const nullTitle = await admin.api.call('updatePage', { path, headers: { 'if-match': '"v3"' }, body: { title: null } });
      expect(nullTitle.status).to.equal(400);
      expect(pointers(nullTitle)).to.deep.equal(['/title']);
      // Site B sees none of it.
      expect((await admin.apiB.call('getPage', { path })).status).to.equal(404);
      expect((await admin.apiB.call('updatePage', { path, headers: { 'if-match': '"v3"' }, body: { title: 'x' } })).status).to.equal(404);
      expect((await admin.apiB.call('deletePage', { path })).status).to.equal(404);
      expect((await admin.api.call('deletePage', { path })).status).to.equal(204);
      expect((await admin.api.call('getPage', { path })).status).to.equal(404);
    });

    it('lists with pagination, status and q filters and sorts; needs pages:read / pages:write', async () => {
      for (const title of ['Zulu', 'Yankee', 'X-ray']) await createPage({ slug: `p-${title.toLowerCase()}`, title, body: 'listing test', status: title === 'Yankee' ? 'published' : 'draft' });
      const all = await walkList<Page>(admin.api, 'listPages', { limit: 2 });
      const expected = (await scratch().db('pages').where({ site_id: admin.server.siteA.id }).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).select('id')) as Array<{ id: number }>;
      expect(ids(all.rows)).to.deep.equal(expected.map((row) => Number(row.id)));
      const byTitle = await walkList<Page>(admin.api, 'listPages', { limit: 1, query: { q: 'LISTING', sort: 'title' } });
      expect(byTitle.rows.map((page) => page.title)).to.deep.equal(['X-ray', 'Yankee', 'Zulu']);
      const publishedOnly = await admin.api.call<PageList>('listPages', { query: { q: 'listing', status: 'published' } });
      expect(publishedOnly.body.data.map((page) => page.title)).to.deep.equal(['Yankee']);
      const updatedOrder = await walkList<Page>(admin.api, 'listPages', { limit: 2, query: { sort: 'updatedAt' } });
      const times = updatedOrder.rows.map((page) => Date.parse(page.updatedAt));
      expect(times).to.deep.equal([...times].sort((a, b) => a - b));
      expect((await admin.api.call('listPages', { query: { cursor: 'bm9wZQ' } })).problem.code).to.equal('invalid_cursor');
      const noPages = admin.api.withToken((await issueToken(scratch().db, admin.server.siteA, { scopes: ['posts:read', 'posts:write'] })).token);
      expect((await noPages.call('listPages')).problem.code).to.equal('insufficient_scope');
      expect((await noPages.call('createPage', { body: { slug: 'x', title: 'x', body: '' } })).status).to.equal(403);
    });
  });
});
