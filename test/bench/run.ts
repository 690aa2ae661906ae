/**
 * npm run bench: the OAuth and member-API throughput tables. Loopback only, bounded in time (BENCH_SECONDS per row,
 * BENCH_CONNECTIONS connections); BENCH_DATABASE=mysql runs them on a scratch MySQL database instead of SQLite.
 */
import { graphqlBench } from './graphql.bench.js';
import { printTable } from './harness.js';
import { oauthBench } from './oauth.bench.js';

const kind = process.env.BENCH_DATABASE === 'mysql' ? 'mysql' : 'sqlite';
printTable(`schoolgate OAuth bench (${kind})`, await oauthBench(kind));
printTable(`schoolgate member GraphQL bench (${kind})`, await graphqlBench(kind));
