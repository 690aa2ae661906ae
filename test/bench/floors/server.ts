/**
 * The floors' server (npm run bench): the product's statements run by hand (test/bench/floors/), in a process of its
 * own over the product's database (DATABASE_URL). Prints one JSON line with `listeningOn`.
 */
import { parseDatabaseUrl } from '../../../src/config/database-url.js';
import { startFloorServer } from './index.js';
import { openRawStore } from './store.js';

const store = openRawStore(parseDatabaseUrl(process.env.DATABASE_URL));
const server = await startFloorServer(store);
process.stdout.write(`${JSON.stringify({ listeningOn: server.url })}\n`);
process.once('SIGTERM', () => void server.close().then(() => store.close()));
