import { expect } from 'chai';
import { buildSchema, parse } from 'graphql';
import { deprecatedOperations } from '../src/admin/api/deprecation-notice.js';
import { enroll } from '../src/people/enrollments.js';
import { deprecationTracker } from '../src/graphql/deprecations.js';
import { createSite, type Site } from '../src/sites/sites.js';
import { makeCourse } from './admin-people-fixtures.js';
import { issueToken } from './support/admin.js';
import { ContractRepo } from './support/contract-repo.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';
import { gql, memberToken } from './support/member-api.js';
import { makeUser } from './support/oauth-fixtures.js';
import { freePort, runCli, startServerProcess, type ServerProcess } from './support/processes.js';

/**
 * How a deprecation reaches clients and operators at run time. The admin API answers a
 * deprecated operation with Deprecation (RFC 9745), Sunset (RFC 8594) and Link headers; the member API names the
 * deprecated elements a request used in `extensions.deprecations`; each use is counted per site, client and element
 * and read back through the admin API, the CLI and /metrics. The end-to-end part runs a server and the CLI from a
 * scratch copy of the project whose contracts deprecate `Course.slug` and `getMcpConnections`.
 */

const SINCE = '2026-12-01';
const SUNSET = '2027-06-30';
/** 2026-12-01T00:00:00Z as an RFC 9745 structured-field date, and 2027-06-30 as an RFC 8594 HTTP-date. */
const DEPRECATION_HEADER = '@1796083200';
const SUNSET_HEADER = 'Wed, 30 Jun 2027 00:00:00 GMT';

describe('deprecations at run time: which elements a GraphQL request uses', () => {
  const reason = (replacement: string) => `"Use \`${replacement}\` instead. Sunset ${SUNSET}."`;
  const schema = buildSchema(`
    type Query {
      course(id: ID, legacyId: Int @deprecated(reason: ${reason('Query.course(id:)')})): Course
      search(filter: Filter, state: State): [Course!]!
    }
    type Course {
      id: ID!
      slug: String! @deprecated(reason: ${reason('Course.title')})
      title: String!
    }
    input Filter {
      title: String
      slug: String @deprecated(reason: ${reason('Filter.title')})
      nested: [Filter!]
    }
    enum State { OPEN OLD @deprecated(reason: ${reason('State.OPEN')}) }
  `);
  const tracker = deprecationTracker(schema);
  const used = (query: string, variables: Record<string, unknown> = {}, operationName?: string) => {
    if (!tracker) throw new Error('the schema deprecates elements, so there is a tracker');
    return tracker.usedBy(parse(query), operationName, variables).map((deprecation) => deprecation.element);
  };

  it('is off for a schema that deprecates nothing', () => {
    expect(deprecationTracker(buildSchema('type Query { a: Int }'))).to.equal(null);
  });

  it('names selected fields, with their sunset and replacement, also through fragments', () => {
    expect(used('{ search { id title } }')).to.deep.equal([]);
    expect(used('{ search { id slug } }')).to.deep.equal(['Course.slug']);
    expect(used('{ search { ...F } } fragment F on Course { slug }')).to.deep.equal(['Course.slug']);
    expect(tracker?.usedBy(parse('{ search { slug } }'), undefined, {})[0]).to.include({ sunset: SUNSET, replacement: 'Course.title', where: 'Course.slug' });
  });

  it('looks at the operation that runs only', () => {
    const document = 'query Old { search { slug } } query New { search { title } }';
    expect(used(document, {}, 'New')).to.deep.equal([]);
    expect(used(document, {}, 'Old')).to.deep.equal(['Course.slug']);
  });

  it('names deprecated arguments, input fields and enum values written in the document', () => {
    expect(used('{ course(id: "1") { title } }')).to.deep.equal([]);
    expect(used('{ course(legacyId: 2) { title } }')).to.deep.equal(['Query.course(legacyId:)']);
    expect(used('{ search(filter: { nested: [{ slug: "x" }] }, state: OLD) { title } }')).to.deep.equal(['Filter.slug', 'State.OLD']);
    expect(used('{ search(filter: { title: "x" }, state: OPEN) { title } }')).to.deep.equal([]);
  });

  it('names deprecated input fields and enum values sent as variables', () => {
    const query = 'query Find($filter: Filter, $state: State) { search(filter: $filter, state: $state) { title } }';
    expect(used(query, { filter: { nested: [{ title: 'a' }, { slug: 'b' }] }, state: 'OLD' })).to.deep.equal(['Filter.slug', 'State.OLD']);
    expect(used(query, { filter: { title: 'a' }, state: 'OPEN' })).to.deep.equal([]);
    expect(used(query)).to.deep.equal([]);
  });
});

describe('deprecations at run time: the headers of a deprecated admin operation', () => {
  it('gives Deprecation, Sunset and Link to the operation and its successor in the API reference', () => {
    const document = {
      paths: {
        '/old': { get: { operationId: 'getOld', tags: ['MCP connections'], deprecated: true, 'x-deprecated-since': SINCE, 'x-sunset': SUNSET, 'x-replaced-by': 'getNew' } },
        '/new': { get: { operationId: 'getNew', tags: ['School'] } },
      },
    };
    const operations = deprecatedOperations(document);
    expect([...operations.keys()]).to.deep.equal(['getOld']);
    expect(operations.get('getOld')?.headers('https://school.example')).to.deep.equal({
      Deprecation: DEPRECATION_HEADER,
      Sunset: SUNSET_HEADER,
      Link: '<https://school.example/docs/admin-api#/MCP%20connections/getOld>; rel="deprecation"; type="text/html", <https://school.example/docs/admin-api#/School/getNew>; rel="successor-version"; type="text/html"',
    });
  });
});

/** The stored count once the server's flush job has written it (the counts are kept in memory between flushes). */
async function usesWritten(scratch: ScratchDatabase, where: Record<string, string | number>, uses: number): Promise<{ uses: number | string; day: string } | undefined> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = (await scratch.db('api_usage').where(where).first('uses', 'day')) as { uses: number | string; day: string } | undefined;
    if (Number(row?.uses) >= uses || Date.now() > deadline) return row;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('deprecations at run time: a server on contracts that deprecate a field and an operation', function () {
  this.timeout(180_000);
  let copy: ContractRepo;

  before(() => {
    copy = new ContractRepo('schoolgate-deprecations-runtime-');
    copy.addSources();
    copy.edit('schema/courses.graphql', 'slug: String!', `slug: String! @deprecated(reason: "Use \`Course.title\` instead. Sunset ${SUNSET}.")`);
    copy.edit(
      'openapi/admin.yaml',
      'operationId: getMcpConnections\n',
      `operationId: getMcpConnections\n      deprecated: true\n      x-deprecated-since: ${SINCE}\n      x-sunset: ${SUNSET}\n      x-replaced-by: getSchool\n`,
    );
  });
  after(() => copy.remove());

  for (const kind of TEST_DATABASE_KINDS) {
    describe(`[${kind}]`, () => {
      let scratch: ScratchDatabase;
      let server: ServerProcess;
      let site: Site;
      let metricsPort: number;

      before(async () => {
        scratch = await createScratchDatabase(kind);
        const port = await freePort();
        metricsPort = await freePort();
        site = await createSite(scratch.db, { origin: `http://localhost:${port}`, name: 'Deprecation School', subdomain: `deprecation-${port}` });
        // Uses are counted in memory and written by the flush job: every second here, so the test waits briefly.
        server = await startServerProcess(
          { DATABASE_URL: scratch.url, PORT: String(port), METRICS_PORT: String(metricsPort), LOG_LEVEL: 'silent', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_USAGE_FLUSH_INTERVAL_SECONDS: '1' },
          copy.dir,
        );
      });
      after(async () => {
        server.child.kill('SIGTERM');
        await server.exited;
        await scratch.drop();
      });

      it('tells admin clients on every answer of the deprecated operation, counts authenticated calls, and reports them', async () => {
        const operator = await issueToken(scratch.db, site);
        const call = (path: string, token: string | null) =>
          fetch(`${site.origin}/api/admin/v1${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });

        const deprecated = await call('/school/mcp-connections', operator.token);
        expect(deprecated.status).to.equal(200);
        expect(deprecated.headers.get('deprecation')).to.equal(DEPRECATION_HEADER);
        expect(deprecated.headers.get('sunset')).to.equal(SUNSET_HEADER);
        expect(deprecated.headers.get('link')).to.equal(
          `<${site.origin}/docs/admin-api#/MCP%20connections/getMcpConnections>; rel="deprecation"; type="text/html", <${site.origin}/docs/admin-api#/School/getSchool>; rel="successor-version"; type="text/html"`,
        );
        await call('/school/mcp-connections', operator.token);
        await usesWritten(scratch, { api: 'admin', element: 'getMcpConnections' }, 2);
        // A refusal carries the headers too, but there is no client to count.
        const anonymous = await call('/school/mcp-connections', null);
        expect(anonymous.status).to.equal(401);
        expect(anonymous.headers.get('deprecation')).to.equal(DEPRECATION_HEADER);
        // An operation that is not deprecated says nothing.
        const current = await call('/school', operator.token);
        expect(current.status).to.equal(200);
        expect(current.headers.get('deprecation')).to.equal(null);
        expect(current.headers.get('sunset')).to.equal(null);

        const report = await call('/deprecations/usage?days=7', operator.token);
        expect(report.status).to.equal(200);
        const body = (await report.json()) as { days: number; from: string; to: string; elements: Array<Record<string, unknown>> };
        const today = new Date().toISOString().slice(0, 10);
        expect(body).to.include({ days: 7, to: today });
        const operation = body.elements.find((element) => element.element === 'getMcpConnections');
        expect(operation).to.deep.include({ api: 'admin', where: 'GET /school/mcp-connections', sunset: SUNSET, replacement: 'getSchool', uses: 2 });
        expect(operation?.clients).to.have.length(1);
        expect((operation?.clients as Array<Record<string, unknown>>)[0]).to.include({ clientId: operator.app.client.clientId, clientName: operator.app.client.name, uses: 2 });
        // The deprecated GraphQL field is listed before anyone uses it.
        expect(body.elements.find((element) => element.element === 'Course.slug')).to.deep.include({ api: 'graphql', sunset: SUNSET, replacement: 'Course.title', uses: 0, clients: [] });

        const badDays = await call('/deprecations/usage?days=91', operator.token);
        expect(badDays.status).to.equal(400);
        expect(badDays.headers.get('content-type')).to.contain('application/problem+json');
      });

      it('names a deprecated field in extensions.deprecations, counts it per client, and shows it in the CLI and /metrics', async () => {
        const member = await makeUser(scratch.db, site, ['student'], 'Dee Precated');
        const course = await makeCourse(scratch.db, site.id, 'Legacy Links');
        await enroll(scratch.db, site.id, { userId: member.id, courseId: course.id, hasLifetimeAccess: true });
        const token = await memberToken(scratch.db, site, member);
        const clientId = (await scratch.db('oauth_clients').where({ site_id: site.id, audience: 'member' }).orderBy('id', 'desc').first('client_id')) as { client_id: string };

        const withSlug = await gql<{ viewer: { enrolledCourses: { nodes: Array<{ slug: string; title: string }> } } }>(site.origin, 'A', token, '{ viewer { enrolledCourses { nodes { slug title } } } }');
        expect(withSlug.status).to.equal(200);
        expect(withSlug.errors).to.equal(undefined);
        expect(withSlug.data?.viewer.enrolledCourses.nodes[0]?.title).to.equal('Legacy Links');
        expect((withSlug as { extensions?: unknown }).extensions).to.deep.equal({ deprecations: [{ coordinate: 'Course.slug', sunset: SUNSET, replacement: 'Course.title' }] });
        const withoutSlug = await gql(site.origin, 'A', token, '{ viewer { enrolledCourses { nodes { title } } } }');
        expect(withoutSlug.status).to.equal(200);
        expect((withoutSlug as { extensions?: unknown }).extensions).to.equal(undefined);
        for (let i = 0; i < 2; i += 1) await gql(site.origin, 'A', token, 'query Again { viewer { enrolledCourses { nodes { ...C } } } } fragment C on Course { slug }');

        const counted = await usesWritten(scratch, { site_id: site.id, api: 'graphql', element: 'Course.slug' }, 3);
        expect(Number(counted?.uses)).to.equal(3);
        expect(counted?.day).to.equal(new Date().toISOString().slice(0, 10));

        const cli = await runCli(['deprecations', '--site', site.origin], { DATABASE_URL: scratch.url }, { cwd: copy.dir });
        expect(cli.code, cli.stderr).to.equal(0);
        expect(cli.stdout).to.include(`Course.slug (member API): sunset ${SUNSET}, use Course.title instead`);
        expect(cli.stdout).to.include(`client ${clientId.client_id} (`).and.include('called Course.slug 3 times in the last 7 days');
        expect(cli.stdout).to.include('GET /school/mcp-connections (admin API): sunset 2027-06-30, use getSchool instead');
        const json = await runCli(['--json', 'deprecations', '--site', site.origin, '--days', '1'], { DATABASE_URL: scratch.url }, { cwd: copy.dir });
        expect(json.code, json.stderr).to.equal(0);
        const data = JSON.parse(json.stdout) as { site: string; days: number; elements: Array<{ element: string; uses: number }> };
        expect(data).to.include({ site: site.origin, days: 1 });
        expect(data.elements.find((element) => element.element === 'Course.slug')?.uses).to.equal(3);
        const refused = await runCli(['deprecations', '--site', site.origin, '--days', '0'], { DATABASE_URL: scratch.url }, { cwd: copy.dir });
        expect(refused.code).to.equal(2);
        expect(refused.stderr).to.include('--days "0" is not a whole number from 1 to 90');

        const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
        // Per API and element only: a label per client would grow without bound.
        expect(metrics).to.include('schoolgate_deprecated_uses_total{api="graphql",element="Course.slug"} 3');
        expect(metrics).not.to.include('client_id=');
      });
    });
  }
});
