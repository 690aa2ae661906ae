import { createRequire } from 'node:module';
import type { Knex } from 'knex';

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

interface BetterSqliteClient {
  _driver(): unknown;
}

/** knex's own better-sqlite3 dialect, with its driver taken from sqliteDriver() instead of a fixed require. */
export function betterSqliteClient(): KnexClientClass {
  const Base = require('knex/lib/dialects/better-sqlite3/index.js') as new (...args: unknown[]) => BetterSqliteClient;
  class VersionMatchedBetterSqlite extends Base {
    override _driver(): unknown {
      return sqliteDriver();
    }
  }
  return VersionMatchedBetterSqlite as unknown as KnexClientClass;
}
