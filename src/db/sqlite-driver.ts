import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import { LruCache } from '../shared/lru-cache.js';
import { PREPARED_STATEMENTS_PER_CONNECTION } from './statement-cache.js';

const require = createRequire(import.meta.url);

/**
 * better-sqlite3 12 wraps its objects with node::ObjectWrap, which aborts the process on Node ≥ 24.19 when a
 * statement is garbage-collected outside a JavaScript context; 13 moved to Node-API but loads only on Node ≥ 22.
 * So Node 20 gets 12 (installed as `better-sqlite3-node20`) and newer lines get 13.
 */
export function sqliteDriver(nodeVersion = process.versions.node): unknown {
  const major = Number(nodeVersion.split('.')[0]);
  return require(major < 22 ? 'better-sqlite3-node20' : 'better-sqlite3');
}

type KnexClientClass = NonNullable<Knex.Config['client']>;

interface SqliteConnection {
  prepare(sql: string): unknown;
}

interface BetterSqliteClient {
  _driver(): unknown;
  acquireRawConnection(): Promise<SqliteConnection>;
}

/**
 * Each statement is prepared once per connection and reused: knex's dialect prepares the SQL on every query, which
 * was the largest single cost of a short request on SQLite. SQLite re-prepares a reused statement itself when a
 * migration changes the schema under it; a statement runs to completion before the next (`all`/`run`), so one object
 * per SQL text is safe to share.
 */
function reusingPreparedStatements(connection: SqliteConnection): SqliteConnection {
  const prepare = connection.prepare.bind(connection);
  const statements = new LruCache<string, unknown>(PREPARED_STATEMENTS_PER_CONNECTION);
  connection.prepare = (sql: string) => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };
  return connection;
}

/**
 * knex's own better-sqlite3 dialect, with its driver taken from sqliteDriver() instead of a fixed require and its
 * statements prepared once per connection.
 */
export function betterSqliteClient(): KnexClientClass {
  const Base = require('knex/lib/dialects/better-sqlite3/index.js') as new (...args: unknown[]) => BetterSqliteClient;
  class VersionMatchedBetterSqlite extends Base {
    override _driver(): unknown {
      return sqliteDriver();
    }

    override async acquireRawConnection(): Promise<SqliteConnection> {
      return reusingPreparedStatements(await super.acquireRawConnection());
    }
  }
  return VersionMatchedBetterSqlite as unknown as KnexClientClass;
}
