import type { Knex } from 'knex';

const WRITE = /^\s*(insert|update|delete|replace)\b/i;

/** Every statement `work` issues on `db`, in order. */
export async function statementsOf(db: Knex, work: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const onQuery = (query: { sql: string }) => {
    statements.push(query.sql);
  };
  db.on('query', onQuery);
  try {
    await work();
  } finally {
    db.off('query', onQuery);
  }
  return statements;
}

/** The INSERT, UPDATE, DELETE and REPLACE statements `work` issues on `db`, in order. */
export async function writesOf(db: Knex, work: () => Promise<unknown>): Promise<string[]> {
  return (await statementsOf(db, work)).filter((sql) => WRITE.test(sql));
}
