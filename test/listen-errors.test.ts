import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { runEntry } from './support/processes.js';

/** `npm start` when it cannot listen: one line on stderr naming the problem and the fix, exit 1, no stack. */
describe('start-up: listen errors', function () {
  this.timeout(120_000);
  let dir: string;
  let occupier: net.Server;
  let port: number;

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'schoolgate-listen-'));
    occupier = net.createServer();
    await new Promise<void>((resolve) => occupier.listen(0, '127.0.0.1', resolve));
    port = (occupier.address() as net.AddressInfo).port;
  });
  after(async () => {
    await new Promise<void>((resolve) => occupier.close(() => resolve()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const start = (env: Record<string, string>) => runEntry('src/main.ts', [], { DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, SCHOOLGATE_DEMO: 'false', ...env }, { timeoutMs: 90_000 });

  it('a port in use', async () => {
    const result = await start({ PORT: String(port), HOST: '127.0.0.1' });
    expect(result.code).to.equal(1);
    expect(result.stderr).to.equal(`schoolgate: port ${port} on 127.0.0.1 is already in use (another schoolgate, or another server?); stop it or set PORT to a free port\n`);
  });

  it('a HOST that is not an address of this machine', async () => {
    const result = await start({ PORT: '0', HOST: '192.0.2.1' });
    expect(result.code).to.equal(1);
    expect(result.stderr.trim().split('\n')).to.deep.equal(['schoolgate: HOST 192.0.2.1 is not an address of this machine; set HOST to one of its addresses, or leave it empty for all']);
  });
});
