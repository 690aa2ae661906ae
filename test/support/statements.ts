import type { Knex } from 'knex';

const WRITE = /^\s*(insert|update|delete|replace)\b/i;

/** The INSERT, UPDATE, DELETE and REPLACE statements `work` issues on `db`, in order. */
export async function writesOf(db: Knex, work: () => Promise<unknown>): Promise<string[]> {
  const writes: string[] = [];
  const onQuery = (query: { sql: string }) => {
    if (WRITE.test(query.sql)) writes.push(query.sql);
  };
  db.on('query', onQuery);
  try {
    await work();
  } finally {
    db.off('query', onQuery);
  }
  return writes;
}
