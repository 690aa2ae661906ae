import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { verifyPassword } from '../src/accounts/passwords.js';
import { findUserByEmail } from '../src/accounts/users.js';
import { clientSecretMatches } from '../src/clients/client-secrets.js';
import { findClientWithSecret } from '../src/clients/clients.js';
import { buildDemoDocument } from '../src/demo/demo-school.js';
import { describeEachDatabase } from './support/databases.js';
import { TEST_KEY_ENCRYPTION_ENV } from './support/key-encryption.js';
import { runCli } from './support/processes.js';
import { runInTerminal, shellQuote, terminalAvailable } from './support/pty.js';

const SITE = 'https://cli-school.example';

describeEachDatabase('operator CLI', (scratch) => {
  const env = () => ({ DATABASE_URL: scratch().url });
  async function json<T>(args: string[], input?: string): Promise<T> {
    const result = await runCli(['--json', ...args], env(), { input });
    expect(result.code, result.stderr + result.stdout).to.equal(0);
    return JSON.parse(result.stdout) as T;
  }

  it('migrate reports the schema up to date and lists applied migrations', async () => {
    expect(await json<{ applied: string[] }>(['migrate'])).to.deep.equal({ applied: [] });
    const status = await json<{ applied: string[]; pending: string[] }>(['migrate', '--status']);
    expect(status.pending).to.deep.equal([]);
    expect(status.applied).to.include('0001_sites_and_accounts');
  });

  it('site create, list and set', async () => {
    const created = await json<{ origin: string; subdomain: string; mcpConnectionsEnabled: boolean }>(['site', 'create', '--origin', `${SITE}/`, '--name', 'CLI School']);
    expect(created).to.include({ origin: SITE, subdomain: 'cli-school', mcpConnectionsEnabled: false });

    const listed = await json<Array<{ origin: string }>>(['site', 'list']);
    expect(listed.map((site) => site.origin)).to.include(SITE);

    const updated = await json<{ mcpConnectionsEnabled: boolean; openRegistration: boolean; metadataDocumentHosts: string[]; name: string }>([
      'site', 'set', '--site', SITE, '--mcp-connections', 'on', '--metadata-hosts', 'Agents.Example,tools.example', '--name', 'CLI School of Design',
    ]);
    expect(updated).to.deep.include({ mcpConnectionsEnabled: true, openRegistration: false, name: 'CLI School of Design', metadataDocumentHosts: ['agents.example', 'tools.example'] });
  });

  it('refuses a second site on the same origin with a JSON error and exit 1', async () => {
    const result = await runCli(['--json', 'site', 'create', '--origin', SITE, '--name', 'Again'], env());
    expect(result.code).to.equal(1);
    expect(JSON.parse(result.stdout)).to.include({ error: 'site_exists' });
  });

  it('user create reads the password from stdin; role grant is idempotent', async () => {
    const user = await json<{ email: string; hasPassword: boolean }>(['user', 'create', '--email', 'Ops@CLI-School.example', '--name', 'Ops', '--password-stdin'], 'a-long-password\n');
    expect(user).to.include({ email: 'ops@cli-school.example', hasPassword: true });
    const first = await json<{ granted: boolean; roles: string[] }>(['role', 'grant', '--site', SITE, '--email', 'ops@cli-school.example', '--role', 'operator']);
    expect(first).to.deep.include({ granted: true, roles: ['operator'] });
    const again = await json<{ granted: boolean }>(['role', 'grant', '--site', SITE, '--email', 'ops@cli-school.example', '--role', 'operator']);
    expect(again.granted).to.equal(false);
  });

  it('user set-password gives a password-less account (added through the admin API) a password it signs in with', async () => {
    await json(['user', 'create', '--email', 'added@cli-school.example', '--name', 'Added']);
    const before = await scratch().db('users').where({ email: 'added@cli-school.example' }).first('password_hash');
    expect(before.password_hash).to.equal(null);
    const set = await json<{ email: string }>(['user', 'set-password', '--email', 'Added@CLI-School.example', '--password-stdin'], 'a-new-long-password\n');
    expect(set.email).to.equal('added@cli-school.example');
    const account = await findUserByEmail(scratch().db, 'added@cli-school.example');
    expect(await verifyPassword('a-new-long-password', account?.passwordHash ?? '')).to.equal(true);
    const unknown = await runCli(['--json', 'user', 'set-password', '--email', 'nobody@cli-school.example', '--password', 'long-enough-1'], env());
    expect(unknown.code).to.equal(1);
    expect(JSON.parse(unknown.stdout)).to.include({ error: 'user_not_found' });
    const missing = await runCli(['user', 'set-password', '--email', 'added@cli-school.example'], env());
    expect(missing.code).to.equal(2);
  });

  it('refuses a short password and an unknown role with clear messages', async () => {
    const short = await runCli(['user', 'create', '--email', 'x@cli-school.example', '--name', 'X', '--password', 'short'], env());
    expect(short.code).to.equal(1);
    expect(short.stderr).to.contain('at least 8 characters');
    const role = await runCli(['role', 'grant', '--site', SITE, '--email', 'ops@cli-school.example', '--role', 'wizard'], env());
    expect(role.code).to.equal(1);
    expect(role.stderr).to.contain('unknown role "wizard"');
  });

  it('client create makes public and confidential clients; the secret is printed once and stored hashed', async () => {
    const publicClient = await json<{ clientId: string; tokenEndpointAuthMethod: string; clientSecret: string | null; scopes: string[] }>([
      'client', 'create', '--site', SITE, '--name', 'Member App', '--audience', 'member', '--scope', 'openid profile account:read', '--redirect-uri', 'http://127.0.0.1:8765/cb',
    ]);
    expect(publicClient).to.deep.include({ tokenEndpointAuthMethod: 'none', clientSecret: null, scopes: ['openid', 'profile', 'account:read'] });

    const confidential = await json<{ clientId: string; tokenEndpointAuthMethod: string; clientSecret: string }>([
      'client', 'create', '--site', SITE, '--name', 'Ops Console', '--audience', 'operator', '--confidential', '--scope', 'school:read', '--scope', 'courses:read', '--redirect-uri', 'https://console.example/cb',
    ]);
    expect(confidential.tokenEndpointAuthMethod).to.equal('client_secret_post');
    expect(confidential.clientSecret).to.match(/^sgs_/);

    const site = await scratch().db('sites').where({ origin: SITE }).first();
    const stored = await findClientWithSecret(scratch().db, site.id, confidential.clientId);
    expect(stored?.secretHash).to.be.a('string').and.not.contain(confidential.clientSecret);
    expect(await clientSecretMatches(confidential.clientSecret, stored?.secretHash ?? '')).to.equal(true);

    const rotated = await json<{ clientSecret: string }>(['client', 'rotate-secret', '--site', SITE, '--client-id', confidential.clientId]);
    expect(rotated.clientSecret).not.to.equal(confidential.clientSecret);
    const after = await findClientWithSecret(scratch().db, site.id, confidential.clientId);
    expect(await clientSecretMatches(confidential.clientSecret, after?.secretHash ?? '')).to.equal(false);
    expect(await clientSecretMatches(rotated.clientSecret, after?.secretHash ?? '')).to.equal(true);

    const listed = await json<Array<{ clientId: string }>>(['client', 'list', '--site', SITE]);
    expect(listed.map((client) => client.clientId)).to.have.members([publicClient.clientId, confidential.clientId]);
  });

  it('refuses account:* scopes for an operator client and plain-http redirect URIs, pointing at each field', async () => {
    const result = await runCli(
      ['--json', 'client', 'create', '--site', SITE, '--name', 'Bad', '--audience', 'operator', '--scope', 'account:read', '--redirect-uri', 'http://evil.example/cb'],
      env(),
    );
    expect(result.code).to.equal(1);
    const body = JSON.parse(result.stdout) as { error: string; problems: Array<{ pointer: string; message: string }> };
    expect(body.error).to.equal('invalid_client_metadata');
    expect(body.problems.map((problem) => problem.pointer)).to.deep.equal(['/scopes/0', '/redirectUris/0']);
  });

  it('keys rotate makes a new active key and retires the previous one', async () => {
    const first = await json<{ kid: string }>(['keys', 'rotate', '--site', SITE]);
    const second = await json<{ kid: string }>(['keys', 'rotate', '--site', SITE]);
    expect(second.kid).not.to.equal(first.kid);
    const rows: Array<{ kid: string; state: string }> = await scratch().db('signing_keys').select('kid', 'state').orderBy('id');
    expect(rows).to.deep.equal([
      { kid: first.kid, state: 'retired' },
      { kid: second.kid, state: 'active' },
    ]);
  });

  it('names an unknown site clearly', async () => {
    const result = await runCli(['client', 'list', '--site', 'https://nowhere.example'], env());
    expect(result.code).to.equal(1);
    expect(result.stderr).to.contain('no site has the origin https://nowhere.example');
  });

  describe('import', () => {
    let dir: string;
    let file: string;
    before(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-cli-import-'));
      file = path.join(dir, 'school.json');
      fs.writeFileSync(file, JSON.stringify(buildDemoDocument('https://cli-import.example', new Date())));
    });
    after(() => fs.rmSync(dir, { recursive: true, force: true }));

    /** A finished progress line: the table, a full bar, records of records, the time taken. */
    const finishedLine = (table: string) => new RegExp(`^${table} +\\[#{20}\\] +(\\d+)/\\1  \\d+\\.\\d s$`, 'm');

    it('with --json prints one JSON document on stdout, and no progress where stderr is not a terminal', async () => {
      const result = await runCli(['--json', 'import', file], env());
      expect(result.code, result.stderr).to.equal(0);
      const report = JSON.parse(result.stdout) as { site: { origin: string; created: boolean }; counts: Record<string, unknown> };
      expect(report.site).to.include({ origin: 'https://cli-import.example', created: true });
      expect(report.counts).to.have.property('lecture_progress');
      expect(result.stderr).to.equal('');
    });

    it('without --json prints a finished line per table on stderr (nothing to redraw in a log) and the summary on stdout', async () => {
      const result = await runCli(['import', file], env());
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stdout).to.match(/^imported .* into https:\/\/cli-import\.example\n/);
      expect(result.stderr).not.to.contain('\r');
      for (const table of ['sites', 'users', 'courses', 'enrollments', 'pages']) expect(result.stderr).to.match(finishedLine(table));
    });

    it('on a terminal draws a bar per table on stderr, redrawn in place, while stdout stays one JSON document', async function () {
      if (!terminalAvailable()) this.skip();
      const out = path.join(dir, 'out.json');
      const command = [process.execPath, '--import', 'tsx', 'src/cli/main.ts', '--json', 'import', file].map(shellQuote).join(' ');
      const { code, screen } = await runInTerminal(`${command} > ${shellQuote(out)}`, { LOG_LEVEL: 'silent', ...TEST_KEY_ENCRYPTION_ENV, DATABASE_URL: scratch().url });
      expect(code, screen).to.equal(0);
      expect(JSON.parse(fs.readFileSync(out, 'utf8'))).to.have.nested.property('site.origin', 'https://cli-import.example');
      // Each table's line starts empty and is redrawn (\r) until finished; the terminal shows the last drawing.
      const shown = screen.split(/\r?\n/).map((line) => line.split('\r').filter(Boolean).at(-1) ?? '');
      for (const table of ['sites', 'users', 'courses', 'enrollments', 'pages']) {
        expect(screen).to.match(new RegExp(`\\r${table} +\\[·{20}\\] +0/\\d+`));
        expect(shown.join('\n')).to.match(finishedLine(table));
      }
    });
  });
});

describe('operator CLI usage', function () {
  this.timeout(30000);
  for (const command of [[], ['site', 'create'], ['site', 'list'], ['site', 'set'], ['user', 'create'], ['user', 'set-password'], ['role', 'grant'], ['client', 'create'], ['client', 'list'], ['client', 'rotate-secret'], ['keys', 'rotate'], ['import'], ['migrate']]) {
    it(`schoolgate ${command.join(' ')} --help`, async () => {
      const result = await runCli([...command, '--help'], {});
      expect(result.code).to.equal(0);
      expect(result.stdout).to.contain('Usage: schoolgate');
    });
  }

  it('exits 2 on a usage error', async () => {
    const result = await runCli(['site', 'create', '--origin'], {});
    expect(result.code).to.equal(2);
    expect(result.stderr).to.contain('error: option');
  });
});
