import { expect } from 'chai';
import { ConfigError, loadConfig, normalizeOrigin, parseDatabaseUrl, parseVariant } from '../src/config/config.js';
import { limitHeapGrowth } from '../src/heap-growth.js';
import { runEntry } from './support/processes.js';

describe('configuration (issue 2, bad input)', () => {
  it('uses an SQLite file under ./data when DATABASE_URL is unset', () => {
    const config = parseDatabaseUrl(undefined);
    expect(config.client).to.equal('sqlite');
    expect(config.client === 'sqlite' && config.filename).to.match(/\/data\/schoolgate\.sqlite$/);
  });

  it('reads a MySQL URL with credentials, port and database', () => {
    expect(parseDatabaseUrl('mysql://app:s%40cret@db.internal:3307/school')).to.deep.include({ client: 'mysql', host: 'db.internal', port: 3307, user: 'app', password: 's@cret', database: 'school' });
    expect(parseDatabaseUrl('mysql://root@127.0.0.1/test')).to.deep.include({ port: 3306, password: '' });
  });

  for (const [url, message] of [
    ['postgres://localhost/db', /unsupported scheme "postgres:"/],
    ['mysql://127.0.0.1:3306/', /needs a host and a database name/],
    ['not a url', /not a URL/],
    ['sqlite:', /needs a file path/],
  ] as const) {
    it(`refuses DATABASE_URL=${url}`, () => {
      expect(() => parseDatabaseUrl(url)).to.throw(ConfigError, message);
    });
  }

  it('takes variant A by default, A or B in any case, and refuses anything else', () => {
    expect(parseVariant(undefined)).to.equal('A');
    expect(parseVariant('b')).to.equal('B');
    expect(() => parseVariant('C')).to.throw(ConfigError, /unknown variant "C"/);
  });

  it('normalises origins and refuses paths', () => {
    expect(normalizeOrigin('HTTP://LocalHost:80')).to.equal('http://localhost');
    expect(normalizeOrigin('https://school.example:443/')).to.equal('https://school.example');
    expect(() => normalizeOrigin('https://school.example/app')).to.throw(ConfigError);
  });

  it('refuses bad PORT, TRUST_PROXY and LOG_LEVEL values', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
    expect(() => loadConfig({ TRUST_PROXY: 'maybe' })).to.throw(ConfigError, /TRUST_PROXY/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).to.throw(ConfigError, /LOG_LEVEL/);
  });

  it('bounds heap growth at 50 % unless SCHOOLGATE_HEAP_GROWING_PERCENT says otherwise (0: V8 decides)', () => {
    expect(loadConfig({}).heapGrowingPercent).to.equal(50);
    expect(loadConfig({ SCHOOLGATE_HEAP_GROWING_PERCENT: '0' }).heapGrowingPercent).to.equal(0);
    expect(() => loadConfig({ SCHOOLGATE_HEAP_GROWING_PERCENT: 'low' })).to.throw(ConfigError, /SCHOOLGATE_HEAP_GROWING_PERCENT: "low" is not a whole number/);
  });

  it('limits anonymous traffic per address at 60 authorization requests a minute and 100 failures per 10 minutes unless told otherwise (issue 13 item 2)', () => {
    expect(loadConfig({}).anonymousLimits).to.deep.equal({ authorizePerMinute: 60, failuresPerTenMinutes: 100 });
    const raised = loadConfig({ SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE: '600', SCHOOLGATE_FAILURE_LIMIT_PER_10_MINUTES: '1000' }).anonymousLimits;
    expect(raised).to.deep.equal({ authorizePerMinute: 600, failuresPerTenMinutes: 1000 });
    expect(() => loadConfig({ SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE: '0' })).to.throw(ConfigError, /SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE: must be 1 or more/);
    expect(() => loadConfig({ SCHOOLGATE_FAILURE_LIMIT_PER_10_MINUTES: 'many' })).to.throw(ConfigError, /not a whole number/);
  });

  it('sets the heap growth flag at start-up unless node was given one or it is 0 (issue 12, memory under load)', () => {
    const set: string[] = [];
    const record = (flags: string) => set.push(flags);
    expect(limitHeapGrowth(30, ['--import', 'tsx'], record)).to.equal(true);
    expect(limitHeapGrowth(50, ['--heap-growing-percent=80'], record)).to.equal(false);
    expect(limitHeapGrowth(50, ['--heap-growing-percent', '80'], record)).to.equal(false);
    expect(limitHeapGrowth(0, [], record)).to.equal(false);
    expect(set).to.deep.equal(['--heap-growing-percent=30']);
  });

  describe('start-up stops with one clear line, before listening', function () {
    this.timeout(30000);
    for (const [name, env, line] of [
      ['an unknown variant', { SCHOOLGATE_VARIANT: 'Z' }, /^schoolgate: configuration error: SCHOOLGATE_VARIANT: unknown variant "Z" \(use A or B\)\n$/],
      ['a bad DATABASE_URL', { DATABASE_URL: 'postgres://localhost/x' }, /^schoolgate: configuration error: DATABASE_URL: unsupported scheme "postgres:".*\n$/],
      ['an unreachable MySQL', { DATABASE_URL: 'mysql://root@127.0.0.1:1/test' }, /^schoolgate: cannot reach the database mysql:\/\/root@127\.0\.0\.1:1\/test: .+\n$/],
    ] as const) {
      it(`on ${name}`, async () => {
        const result = await runEntry('src/main.ts', [], { PORT: '0', ...env });
        expect(result.code).to.equal(1);
        expect(result.stderr).to.match(line);
        expect(result.stdout).not.to.contain('listening');
      });
    }
  });
});
