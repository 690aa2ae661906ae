import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ConfigError } from '../src/config/config-error.js';
import { loadConfig, normalizeOrigin, parseVariant } from '../src/config/config.js';
import { parseDatabaseUrl } from '../src/config/database-url.js';
import { limitHeapGrowth } from '../src/heap-growth.js';
import { runEntry } from './support/processes.js';

describe('configuration: defaults and refused values', () => {
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

  it('keeps at most 10,000 sites per process unless SCHOOLGATE_SITE_CACHE_SIZE says otherwise, and at least one', () => {
    expect(loadConfig({}).siteCacheSize).to.equal(10_000);
    expect(loadConfig({ SCHOOLGATE_SITE_CACHE_SIZE: '50000' }).siteCacheSize).to.equal(50_000);
    expect(() => loadConfig({ SCHOOLGATE_SITE_CACHE_SIZE: '0' })).to.throw(ConfigError, /SCHOOLGATE_SITE_CACHE_SIZE: must be 1 or more/);
    expect(() => loadConfig({ SCHOOLGATE_SITE_CACHE_SIZE: 'all' })).to.throw(ConfigError, /SCHOOLGATE_SITE_CACHE_SIZE: "all" is not a whole number/);
  });

  it('limits anonymous traffic per address at 60 authorization requests a minute and 100 failures per 10 minutes unless told otherwise', () => {
    expect(loadConfig({}).anonymousLimits).to.deep.equal({ authorizePerMinute: 60, failuresPerTenMinutes: 100 });
    const raised = loadConfig({ SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE: '600', SCHOOLGATE_FAILURE_LIMIT_PER_10_MINUTES: '1000' }).anonymousLimits;
    expect(raised).to.deep.equal({ authorizePerMinute: 600, failuresPerTenMinutes: 1000 });
    expect(() => loadConfig({ SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE: '0' })).to.throw(ConfigError, /SCHOOLGATE_AUTHORIZE_LIMIT_PER_MINUTE: must be 1 or more/);
    expect(() => loadConfig({ SCHOOLGATE_FAILURE_LIMIT_PER_10_MINUTES: 'many' })).to.throw(ConfigError, /not a whole number/);
  });

  it('sets the heap growth flag at start-up unless node was given one or it is 0 (memory under load)', () => {
    const set: string[] = [];
    const record = (flags: string) => set.push(flags);
    expect(limitHeapGrowth(30, ['--import', 'tsx'], record)).to.equal(true);
    expect(limitHeapGrowth(50, ['--heap-growing-percent=80'], record)).to.equal(false);
    expect(limitHeapGrowth(50, ['--heap-growing-percent', '80'], record)).to.equal(false);
    expect(limitHeapGrowth(0, [], record)).to.equal(false);
    expect(set).to.deep.equal(['--heap-growing-percent=30']);
  });

  describe('key-encryption keys of the signing keys (docs/signing-keys.md)', () => {
    const key = (fill: number) => Buffer.alloc(32, fill);
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-config-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('has no key by default: an SQLite store gets a generated key file next to its database, a MySQL store none', () => {
      const embedded = loadConfig({}).keyEncryption;
      expect(embedded).to.deep.include({ current: undefined, previous: [] });
      expect(embedded.generatedKeyFile).to.match(/\/data\/key-encryption-key$/);
      expect(loadConfig({ DATABASE_URL: 'sqlite:/srv/school/main.sqlite' }).keyEncryption.generatedKeyFile).to.equal('/srv/school/key-encryption-key');
      expect(loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1/test' }).keyEncryption).to.deep.equal({ current: undefined, previous: [], generatedKeyFile: undefined });
    });

    it('reads the key in base64url or base64 from SCHOOLGATE_KEY_ENCRYPTION_KEY or from the file SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE names', () => {
      const fromUrlSafe = loadConfig({ DATABASE_URL: 'mysql://root@127.0.0.1/test', SCHOOLGATE_KEY_ENCRYPTION_KEY: key(0xfb).toString('base64url') }).keyEncryption;
      expect(Buffer.from(fromUrlSafe.current ?? [])).to.deep.equal(key(0xfb));
      expect(fromUrlSafe.generatedKeyFile).to.equal(undefined);
      expect(Buffer.from(loadConfig({ SCHOOLGATE_KEY_ENCRYPTION_KEY: key(0xfb).toString('base64') }).keyEncryption.current ?? [])).to.deep.equal(key(0xfb));
      const file = path.join(dir, 'kek');
      fs.writeFileSync(file, `${key(2).toString('base64url')}\n`);
      const fromFile = loadConfig({ SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE: file }).keyEncryption;
      expect(Buffer.from(fromFile.current ?? [])).to.deep.equal(key(2));
      expect(fromFile.generatedKeyFile).to.equal(undefined);
    });

    it('reads previous keys separated by commas, spaces or lines, from the variable or its file', () => {
      const listed = loadConfig({ SCHOOLGATE_PREVIOUS_KEY_ENCRYPTION_KEYS: `${key(3).toString('base64url')}, ${key(4).toString('base64url')}` }).keyEncryption;
      expect(listed.previous.map((previous) => Buffer.from(previous))).to.deep.equal([key(3), key(4)]);
      const file = path.join(dir, 'previous');
      fs.writeFileSync(file, `${key(5).toString('base64url')}\n${key(6).toString('base64')}\n`);
      const filed = loadConfig({ SCHOOLGATE_PREVIOUS_KEY_ENCRYPTION_KEYS_FILE: file }).keyEncryption;
      expect(filed.previous.map((previous) => Buffer.from(previous))).to.deep.equal([key(5), key(6)]);
    });

    it('refuses a malformed key without repeating it, a key given twice, and an unreadable file', () => {
      const short = key(1).subarray(0, 16).toString('base64url');
      expect(() => loadConfig({ SCHOOLGATE_KEY_ENCRYPTION_KEY: short })).to.throw(ConfigError, /^SCHOOLGATE_KEY_ENCRYPTION_KEY: not a key-encryption key; expected 32 random bytes in base64url/);
      try {
        loadConfig({ SCHOOLGATE_KEY_ENCRYPTION_KEY: short });
      } catch (error) {
        expect((error as Error).message).not.to.contain(short);
      }
      expect(() => loadConfig({ SCHOOLGATE_PREVIOUS_KEY_ENCRYPTION_KEYS: `${key(1).toString('base64url')},nope` })).to.throw(ConfigError, /^SCHOOLGATE_PREVIOUS_KEY_ENCRYPTION_KEYS, key 2: not a key-encryption key/);
      expect(() => loadConfig({ SCHOOLGATE_KEY_ENCRYPTION_KEY: key(1).toString('base64url'), SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE: '/etc/kek' })).to.throw(
        ConfigError,
        'set SCHOOLGATE_KEY_ENCRYPTION_KEY or SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE, not both',
      );
      const missing = path.join(dir, 'missing');
      expect(() => loadConfig({ SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE: missing })).to.throw(ConfigError, `SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE: cannot read ${missing} (ENOENT)`);
    });
  });

  describe('start-up stops with one clear line, before listening', function () {
    this.timeout(120_000);
    for (const [name, env, line] of [
      ['an unknown variant', { SCHOOLGATE_VARIANT: 'Z' }, /^schoolgate: configuration error: SCHOOLGATE_VARIANT: unknown variant "Z" \(use A or B\)\n$/],
      ['a bad DATABASE_URL', { DATABASE_URL: 'postgres://localhost/x' }, /^schoolgate: configuration error: DATABASE_URL: unsupported scheme "postgres:".*\n$/],
      ['an unreachable MySQL', { DATABASE_URL: 'mysql://root@127.0.0.1:1/test' }, /^schoolgate: cannot reach the database mysql:\/\/root@127\.0\.0\.1:1\/test: .+\n$/],
      [
        'a MySQL store with no key-encryption key',
        { DATABASE_URL: 'mysql://root@127.0.0.1:1/test', SCHOOLGATE_KEY_ENCRYPTION_KEY: undefined },
        /^schoolgate: configuration error: no key-encryption key for the signing keys: set SCHOOLGATE_KEY_ENCRYPTION_KEY \(32 random bytes in base64url, .*\) or SCHOOLGATE_KEY_ENCRYPTION_KEY_FILE; only an SQLite store generates one \(docs\/signing-keys\.md\)\n$/,
      ],
      ['a malformed key-encryption key', { SCHOOLGATE_KEY_ENCRYPTION_KEY: 'too-short' }, /^schoolgate: configuration error: SCHOOLGATE_KEY_ENCRYPTION_KEY: not a key-encryption key; expected 32 random bytes in base64url .*\n$/],
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
