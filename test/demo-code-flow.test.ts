import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { buildDemoDocument, DEMO_LOGINS } from '../src/demo/demo-school.js';
import { importSiteDocument } from '../src/import/import-site.js';
import { PROJECT_ROOT } from '../src/shared/paths.js';
import { walkAuthorizationPages } from './support/authorize-flow.js';
import { describeEachDatabase } from './support/databases.js';
import { startTestServer, type TestServer } from './support/server.js';

/** The first ```js block after a heading of docs/demo.md, as a reader would copy it. */
function snippetUnder(heading: string): string {
  const doc = fs.readFileSync(path.join(PROJECT_ROOT, 'docs', 'demo.md'), 'utf8');
  const section = doc.slice(doc.indexOf(`## ${heading}`));
  const match = /```js\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error(`docs/demo.md has no js block under "${heading}"`);
  return match[1];
}

/**
 * The openid-client code flow in docs/demo.md runs as printed, with `resource` in both requests (RFC 8707): the script
 * prints the authorization URL, the test plays the browser (sign-in and consent pages), pastes the address the browser
 * was sent to, and the script prints Mia's userinfo.
 */
describeEachDatabase('docs/demo.md: the openid-client code flow', (scratch) => {
  let server: TestServer;
  let script: string;

  before(async () => {
    server = await startTestServer(scratch());
    await importSiteDocument(scratch().db, buildDemoDocument(server.siteA.origin, new Date()));
    // Inside the project so that `import 'openid-client'` resolves as it does for a reader who installed it.
    const dir = path.join(PROJECT_ROOT, 'node_modules', '.cache', 'schoolgate-doc-snippets');
    fs.mkdirSync(dir, { recursive: true });
    script = path.join(dir, `code-flow-${process.pid}-${scratch().kind}.mjs`);
    fs.writeFileSync(script, snippetUnder('A complete code flow with openid-client'));
  });
  after(async () => {
    fs.rmSync(script, { force: true });
    await server.stop();
  });

  it('signs Mia in and prints her userinfo', async function () {
    this.timeout(120_000);
    const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH, ISSUER: server.siteA.origin }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const authorizationUrl = await new Promise<URL>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString('utf8');
        const line = /^(http\S+\/oauth\/authorize\?\S+)$/m.exec(stdout)?.[1];
        if (line && stdout.includes('Paste the address')) resolve(new URL(line));
      });
      void exited.then((code) => reject(new Error(`the script exited (${String(code)}) before asking: ${stderr}${stdout}`)));
    });
    expect(authorizationUrl.searchParams.get('resource')).to.equal(server.siteA.origin);

    const back = await walkAuthorizationPages(authorizationUrl, { origin: server.siteA.origin, email: DEMO_LOGINS.member.email, password: DEMO_LOGINS.member.password });
    expect(back.pages).to.deep.equal(['sign-in', 'consent']);
    expect(back.location.href).to.match(/^http:\/\/localhost:8765\/callback\?code=/);

    child.stdin.end(`${back.location.href}\n`);
    expect(await exited, stderr + stdout).to.equal(0);
    const userinfo = JSON.parse(stdout.slice(stdout.indexOf('{'))) as Record<string, unknown>;
    expect(userinfo).to.include({ email: DEMO_LOGINS.member.email, name: DEMO_LOGINS.member.name });
  });
});
