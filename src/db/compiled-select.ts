import type { Knex } from 'knex';
import { isMysql, type Database } from './connection.js';

/**
 * A SELECT for a hot path, built with knex once per SQL dialect and afterwards only bound. Compiling a wide, aliased
 * column list costs knex more per request than the round trip it makes (about a tenth of a userinfo request).
 *
 * `build` receives the first call's values and must use each one as a plain binding (a `where` value, never a null,
 * an array or a raw fragment), so that the SQL text is the same whatever the values are.
 */
export function compiledSelect<Row, Values extends readonly Knex.Value[]>(build: (db: Database, ...values: Values) => Knex.QueryBuilder): (db: Database, ...values: Values) => Promise<Row[]> {
  const sqlByDialect = new Map<'mysql' | 'sqlite', string>();
  return async (db, ...values) => {
    // The two stores the product runs on. (The SQLite client is configured as a driver class, whose text would make
    // a costly map key.)
    const mysql = isMysql(db);
    const dialect = mysql ? 'mysql' : 'sqlite';
    let sql = sqlByDialect.get(dialect);
    if (sql === undefined) {
      const built = build(db, ...values).toSQL();
      if (built.bindings.length !== values.length || built.bindings.some((binding, index) => binding !== values[index])) {
        throw new Error('compiledSelect: the statement must bind exactly the values it is given, in order');
      }
      sql = built.sql;
      sqlByDialect.set(dialect, sql);
    }
    const result: unknown = await db.raw(sql, [...values]);
    // knex hands back the driver's answer to a raw statement: [rows, fields] from mysql2, the rows from better-sqlite3.
    return (mysql ? (result as [Row[], unknown])[0] : result) as Row[];
  };
}
