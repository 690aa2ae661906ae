import { expect } from 'chai';
import { useAdminServer } from './support/admin-fixture.js';
import { browserRequest, CookieJar, decodeEntities, parseForms, type BrowserAnswer } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { attributes } from './support/html-inspection.js';
import { makeClient, makeUser, PASSWORD, type TestClient } from './support/oauth-fixtures.js';
import { seedUsage, type SeededUse } from './support/usage-seed.js';

type Page = Extract<BrowserAnswer, { kind: 'page' }>;

function expectPage(answer: BrowserAnswer, name: string, status = 200): Page {
  if (answer.kind !== 'page') throw new Error(`expected the ${name} page, got a ${answer.status} redirect to ${answer.location.href}`);
  expect(/<main\b[^>]*\bdata-page="([a-z-]+)"/.exec(answer.html)?.[1], answer.html.slice(0, 2000)).to.equal(name);
  expect(answer.status, answer.html.slice(0, 2000)).to.equal(status);
  return answer;
}

/** The element column of the usage table, in order. */
function elementsShown(html: string): string[] {
  return [...html.matchAll(/<tr><td><code>([^<]*)<\/code><\/td>/g)].map((match) => decodeEntities(match[1] ?? ''));
}

describeEachDatabase('admin area: API usage page (/admin/api-usage)', (scratch) => {
  const admin = useAdminServer(scratch);
  let jar: CookieJar;
  let reader: TestClient;

  const open = async (query = '') => browserRequest(jar, new URL(`/admin/api-usage${query}`, admin.origin));

  before(async () => {
    const { db, server } = admin;
    reader = await makeClient(db, server.siteA, { audience: 'member', confidential: false, scopes: ['openid', 'account:read'], name: 'Reader <App>' });
    const clientB = await makeClient(db, server.siteB, { audience: 'member', confidential: false, scopes: ['openid'], name: 'Beta App' });
    const a = server.siteA.id;
    const uses: SeededUse[] = [
      { siteId: a, api: 'graphql', element: 'Course.title', clientRef: reader.client.ref, uses: 1234 },
      { siteId: a, api: 'graphql', element: 'Course.slug', clientRef: reader.client.ref, uses: 3, daysAgo: 20 },
      { siteId: a, api: 'mcp', element: 'list_courses', clientRef: 0, uses: 7 },
      { siteId: a, api: 'admin', element: 'listCourses', clientRef: reader.client.ref, uses: 2 },
      { siteId: server.siteB.id, api: 'graphql', element: 'Lecture.title', clientRef: clientB.client.ref, uses: 99 },
    ];
    // 60 fields of one type, to page through (50 a page).
    for (let index = 0; index < 60; index += 1) uses.push({ siteId: a, api: 'graphql', element: `Bulk.field${String(index).padStart(2, '0')}`, clientRef: reader.client.ref, uses: 1 });
    await seedUsage(db, uses);

    const operator = await makeUser(db, server.siteA, ['operator'], 'Opal Operator');
    jar = new CookieJar();
    const signInPage = expectPage(await open(), 'admin-sign-in');
    const form = parseForms(signInPage.html).find((candidate) => candidate.action === '/admin/sign-in');
    if (!form) throw new Error('no sign-in form');
    const answer = await browserRequest(jar, new URL(form.action, admin.origin), {
      method: 'POST',
      form: [...[...form.fields].filter(([name]) => name === 'csrf_token' || name === 'return_to'), ['email', operator.email], ['password', PASSWORD]],
    });
    expect(answer.kind).to.equal('redirect');
  });

  it('is linked from the navigation of every page and lists the elements used, most used first, with their clients', async () => {
    const home = expectPage(await browserRequest(jar, new URL('/admin', admin.origin)), 'admin-home');
    expect(attributes(home.html, 'a', 'href')).to.include('/admin/api-usage');
    const page = expectPage(await open('?api=graphql&element=Course.'), 'admin-usage');
    expect(elementsShown(page.html)).to.deep.equal(['Course.title', 'Course.slug']);
    expect(page.html).to.contain('1,234');
    // The client's name is shown escaped, with its client_id.
    expect(page.html).to.contain(`Reader &lt;App&gt; <code>${reader.client.clientId}</code>`);
    expect(page.html).to.not.match(/<script/i);
    expect(page.response.headers.get('cache-control')).to.equal('no-store');
    expect(page.response.headers.get('content-security-policy')).to.contain("default-src 'none'");
  });

  it('filters by API and by the beginning of an element, over the days asked for', async () => {
    const mcp = expectPage(await open('?api=mcp'), 'admin-usage');
    expect(elementsShown(mcp.html)).to.deep.equal(['list_courses']);
    expect(mcp.html).to.contain('<strong>Anonymous</strong>');
    expect(mcp.html).to.match(/<option value="mcp" selected>/);
    expect(elementsShown(expectPage(await open('?element=Course.&days=7'), 'admin-usage').html)).to.deep.equal(['Course.title']);
    expect(elementsShown(expectPage(await open('?element=Course.&days=30'), 'admin-usage').html)).to.deep.equal(['Course.title', 'Course.slug']);
    const none = expectPage(await open('?element=Nothing.'), 'admin-usage');
    expect(none.html).to.contain('Nothing matching was used');
  });

  it('pages 50 elements at a time with a Next page link that keeps the filters', async () => {
    const first = expectPage(await open('?element=Bulk.&days=7'), 'admin-usage');
    expect(elementsShown(first.html)).to.have.length(50);
    const next = attributes(first.html, 'a', 'href').find((href) => href.includes('after='));
    expect(next).to.be.a('string');
    expect(next).to.contain('element=Bulk.').and.to.contain('days=7');
    const second = expectPage(await browserRequest(jar, new URL(next ?? '', admin.origin)), 'admin-usage');
    const rest = elementsShown(second.html);
    expect(rest).to.have.length(10);
    expect(new Set([...elementsShown(first.html), ...rest]).size).to.equal(60);
    expect(attributes(second.html, 'a', 'href').some((href) => href.includes('after='))).to.equal(false);
    // A mangled link starts again from the first page.
    expect(elementsShown(expectPage(await open('?element=Bulk.&days=7&after=xyz'), 'admin-usage').html)).to.have.length(50);
  });

  it('refuses days beyond the retention, and an unknown API, with the form again (400), naming the setting', async () => {
    const beyond = expectPage(await open('?days=91'), 'admin-usage', 400);
    expect(decodeEntities(beyond.html)).to.contain('SCHOOLGATE_USAGE_RETENTION_DAYS');
    expect(elementsShown(beyond.html)).to.deep.equal([]);
    expectPage(await open('?days=0'), 'admin-usage', 400);
    expectPage(await open('?days=soon'), 'admin-usage', 400);
    expectPage(await open('?api=soap'), 'admin-usage', 400);
  });

  it('never shows another school’s usage, and asks anyone not signed in as an operator to sign in', async () => {
    const all = expectPage(await open('?days=90'), 'admin-usage');
    expect(elementsShown(all.html)).to.not.include('Lecture.title');
    expectPage(await browserRequest(new CookieJar(), new URL('/admin/api-usage', admin.origin)), 'admin-sign-in');
    // Site B's origin with site A's session: a session belongs to one site.
    expectPage(await browserRequest(jar, new URL('/admin/api-usage', admin.server.siteB.origin)), 'admin-sign-in');
  });
});
