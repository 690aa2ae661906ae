import { expect } from 'chai';
import { startServer, type RunningServer } from '../src/server.js';
import { createLogger } from '../src/shared/logger.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { describeEachDatabase } from './support/databases.js';
import { testConfig } from './support/server.js';
import { captureRequests } from './bench/floors/capture.js';
import { startFloorServer, STATEMENTS_PATH } from './bench/floors/index.js';
import { captureStatements, type CaptureRequests, type ProductRequest, type StatementBook } from './bench/floors/statements.js';
import { openRawStore, type RawStore } from './bench/floors/store.js';

/**
 * The bench's floors (test/bench/floors/) run the product's own statements: for userinfo, the refresh grant and the
 * syllabus, a floor issues exactly the SQL texts the product issues for the same request, in the same order, and
 * answers the same. A statement the product issues that the floor does not know stops the capture; a statement the
 * floor would issue that the product was not seen issuing is refused. Site reads (each side's 5 s cache) are left out.
 */
describeEachDatabase('bench floors: the product’s statements, by construction', (scratch) => {
  let server: RunningServer;
  let site: Site;
  let store: RawStore;
  let floors: { url: string; close(): Promise<void> };
  let book: StatementBook;
  let product: CaptureRequests;
  let floor: CaptureRequests;
  const FLOOR_PATHS: Record<keyof CaptureRequests, string> = { userinfo: '/floor/userinfo', refresh: '/floor/token', syllabus: '/floor/syllabus' };

  const sendTo = (base: string) => async (request: ProductRequest) => (await fetch(`${base}${request.path}`, { method: request.method ?? 'GET', headers: request.headers, body: request.body })).status;

  async function answered(base: string, request: ProductRequest): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${base}${request.path}`, { method: request.method ?? 'GET', headers: request.headers, body: request.body });
    return { status: response.status, body: (await response.json()) as unknown };
  }

  /** What the product issues and answers for one request, site reads left out. */
  async function ofProduct(request: ProductRequest): Promise<{ statements: string[]; status: number; body: unknown }> {
    const statements: string[] = [];
    const onQuery = (query: { sql: string }) => statements.push(query.sql);
    scratch().db.on('query', onQuery);
    try {
      const { status, body } = await answered(site.origin, request);
      return { statements: statements.filter((sql) => sql !== book.sql.site), status, body };
    } finally {
      scratch().db.off('query', onQuery);
    }
  }

  /** What the floor issues and answers for the same kind of request. */
  async function ofFloor(path: keyof CaptureRequests, request: ProductRequest): Promise<{ statements: string[]; status: number; body: unknown }> {
    const statements: string[] = [];
    store.record = (sql) => statements.push(sql);
    try {
      const { status, body } = await answered(floors.url, { ...request, path: FLOOR_PATHS[path] });
      return { statements: statements.filter((sql) => sql !== book.sql.site), status, body };
    } finally {
      store.record = null;
    }
  }

  /** Token responses carry fresh tokens: the same fields, the tokens by their prefix. */
  const shape = (body: unknown) => Object.fromEntries(Object.entries(body as Record<string, unknown>).map(([key, value]) => [key, typeof value === 'string' && /^sg[ar]_/.test(value) ? value.slice(0, 4) : key === 'created_at' ? typeof value : value]));

  before(async function () {
    this.timeout(120000);
    server = await startServer(testConfig({ variant: 'A', database: scratch().config }), { db: scratch().db, logger: createLogger('silent') });
    site = await createSite(scratch().db, { origin: `http://localhost:${new URL(server.listeningOn).port}`, name: 'Floors School', subdomain: 'floors' });
    book = await captureStatements(scratch().db, site.origin, await captureRequests(scratch().db, site, 'A'), sendTo(site.origin));
    product = await captureRequests(scratch().db, site, 'A');
    floor = await captureRequests(scratch().db, site, 'A');
    store = openRawStore(scratch().config);
    floors = await startFloorServer(store);
    expect((await fetch(`${floors.url}${STATEMENTS_PATH}`, { method: 'POST', body: JSON.stringify(book) })).status).to.equal(200);
    // The first presentation of an access token marks it used (the product's one-off write; the floors skip it).
    await sendTo(site.origin)(product.userinfo);
    await sendTo(site.origin)(product.syllabus);
  });
  after(async () => {
    await floors?.close();
    await store?.close();
    await server?.stop(1000);
  });

  it('captures one text per statement of each path, none of them empty', () => {
    expect(Object.keys(book.sql).sort()).to.deep.equal(['refresh.begin', 'refresh.commit', 'refresh.insert', 'refresh.lock', 'refresh.pair', 'refresh.update', 'refresh.update-first', 'site', 'syllabus.enrollments', 'syllabus.sections', 'syllabus.token', 'userinfo.token']);
    for (const sql of Object.values(book.sql)) expect(sql).to.be.a('string').and.not.equal('');
  });

  it('userinfo: the floor issues the product’s one statement and answers the same claims', async () => {
    const ofTheProduct = await ofProduct(product.userinfo);
    const ofTheFloor = await ofFloor('userinfo', product.userinfo);
    expect(ofTheProduct.status).to.equal(200);
    expect(ofTheFloor.status).to.equal(200);
    expect(ofTheFloor.statements).to.deep.equal(ofTheProduct.statements).and.to.have.length(1);
    expect(ofTheFloor.body).to.deep.equal(ofTheProduct.body);
  });

  it('refresh grant: the first refresh of a pair and the same refresh again, each the product’s six statements in its order', async () => {
    for (const round of ['first refresh', 'refresh again']) {
      const ofTheProduct = await ofProduct(product.refresh);
      const ofTheFloor = await ofFloor('refresh', floor.refresh);
      expect(ofTheProduct.status, round).to.equal(200);
      expect(ofTheFloor.status, `${round}: ${JSON.stringify(ofTheFloor.body)}`).to.equal(200);
      expect(ofTheFloor.statements, round).to.deep.equal(ofTheProduct.statements).and.to.have.length(6);
      expect(shape(ofTheFloor.body), round).to.deep.equal(shape(ofTheProduct.body));
    }
  });

  it('syllabus: the floor issues the product’s three statements and answers the same JSON', async () => {
    const ofTheProduct = await ofProduct(product.syllabus);
    const ofTheFloor = await ofFloor('syllabus', product.syllabus);
    expect(ofTheProduct.status).to.equal(200);
    expect(ofTheFloor.statements).to.deep.equal(ofTheProduct.statements).and.to.have.length(3);
    expect(ofTheFloor.body).to.deep.equal(ofTheProduct.body);
  });

  it('a floor refuses a statement the product was not seen issuing: a successor’s refresh locks two rows', async () => {
    const successor = (await answered(floors.url, { ...floor.refresh, path: FLOOR_PATHS.refresh })).body as { refresh_token: string };
    expect(successor.refresh_token).to.match(/^sgr_/);
    const body = new URLSearchParams(floor.refresh.body);
    body.set('refresh_token', successor.refresh_token);
    const refused = await answered(floors.url, { ...floor.refresh, path: FLOOR_PATHS.refresh, body: body.toString() });
    expect(refused.status).to.equal(500);
    expect(JSON.stringify(refused.body)).to.match(/refresh\.lock statement binds 1 values, the floor has 2/);
  });

  it('the capture stops when the product issues a statement the floor does not know', async () => {
    const requests = await captureRequests(scratch().db, site, 'A');
    const send = sendTo(site.origin);
    // A product that reads one more row per request than the floors know of.
    const oneMore = async (request: ProductRequest) => {
      await scratch().db('sites').where({ id: site.id }).first('id');
      return send(request);
    };
    let failure: unknown;
    try {
      await captureStatements(scratch().db, site.origin, requests, oneMore);
    } catch (error) {
      failure = error;
    }
    expect(String(failure)).to.match(/the product issues 2 statements for \/api\/oauth\/userinfo, the floor knows 1/);
  });
});
