import { createScratchDatabase } from '../test/support/databases.js';
import { startProcess } from '../test/bench/harness.js';
import { createSite } from '../src/sites/sites.js';
import { oauthComparisons } from '../test/bench/oauth.bench.js';
import http from 'node:http';
const scratch = await createScratchDatabase('mysql');
const env = { DATABASE_URL: scratch.url, SCHOOLGATE_VARIANT: 'A' };
const product = await startProcess('src/main.ts', { ...env, HOST: '127.0.0.1', PORT: '0', NODE_ENV: 'production', LOG_LEVEL: 'info', SCHOOLGATE_DEMO: 'false', SCHOOLGATE_PRUNE_INTERVAL_SECONDS: '0' });
const floors = await startProcess('test/bench/floors/server.ts', env);
const site = await createSite(scratch.db, { origin: product.url, name: 'Bench School', subdomain: 'bench' });
const [userinfo] = await oauthComparisons({ kind: 'mysql', variant: 'A', productUrl: product.url, floorUrl: floors.url, db: scratch.db, site });
for (const target of [userinfo!.product, userinfo!.floor]) {
  await new Promise<void>((resolve) => {
    http.get(target.url, { headers: target.headers }, (res) => {
      console.log(res.statusCode, JSON.stringify(res.rawHeaders));
      res.resume(); res.on('end', resolve);
    });
  });
}
await product.stop(); await floors.stop(); await scratch.drop(); process.exit(0);
