import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { withTransaction } from '../db/transaction.js';

/** Narrows a query to the rows one prune rule deletes; applied to the batch SELECT and again to its DELETE. */
export type RowCondition = (query: Knex.QueryBuilder) => void;

/**
 * One kind of row the prune deletes.
 *
 * - `drain`: every row the condition matches is deleted, so each batch is just "the first `batchSize` matches" of an
 *   index range, and the range shrinks as it goes. The condition must be served by an index.
 * - `cursor`: some matches may be kept (a NOT EXISTS in the condition), so batches walk the primary key in order
 *   instead of finding the kept rows again at the front of every batch.
 *
 * The DELETE names the selected rows by primary key only, so it locks exactly those rows: a range condition in a
 * DELETE could make InnoDB lock the whole index range (and the gap after it). That is safe because a row the prune
 * selects cannot come back to life (expiry times never move back, revocations are never undone), except where
 * `recheck` says so: then the condition is applied again by the DELETE.
 */
export interface PruneRule {
  /** The report line this rule adds to. */
  target: string;
  table: string;
  /** The primary key's columns; `cursor` rules need a single one. */
  key: readonly string[];
  mode: 'drain' | 'cursor';
  where: RowCondition;
  /** Re-apply `where` in the DELETE: the row may have been taken back into use since it was selected (cursor rules only). */
  recheck?: boolean;
}

export interface BatchOptions {
  batchSize: number;
  /** Called before every batch: renews the lease, and throws to stop the run (lease lost, shutting down). */
  beforeBatch?: () => Promise<void>;
}

type Row = Record<string, unknown>;

/** `key IN (…)` for a one-column key; `(a = ? AND b = ?) OR …` for a composite one, which every optimizer reads as primary-key lookups. */
function whereKeys(query: Knex.QueryBuilder, key: readonly string[], rows: Row[]): void {
  const [only] = key;
  if (key.length === 1 && only !== undefined) {
    query.whereIn(only, [...new Set(rows.map((row) => row[only]))] as Array<string | number>);
    return;
  }
  query.where((any) => {
    for (const row of rows) any.orWhere((one) => key.forEach((column) => one.andWhere(column, row[column] as Knex.Value)));
  });
}

/**
 * Deletes what `rule` matches, at most `batchSize` rows per statement, each DELETE in its own short transaction
 * (withTransaction reruns it if it loses a lock conflict). Never one long transaction: between batches other writers
 * get the rows and the locks back. Returns the rows deleted.
 */
export async function deleteInBatches(db: Database, rule: PruneRule, options: BatchOptions): Promise<number> {
  const cursorColumn = rule.mode === 'cursor' ? rule.key[0] : undefined;
  if (rule.mode === 'cursor' && (rule.key.length !== 1 || cursorColumn === undefined)) throw new Error(`${rule.target}: a cursor rule needs a one-column key`);
  // A drain rule whose DELETE may keep rows would select them again forever.
  if (rule.mode === 'drain' && rule.recheck) throw new Error(`${rule.target}: only a cursor rule may recheck`);
  let deleted = 0;
  let after: unknown;
  for (;;) {
    await options.beforeBatch?.();
    const select = db(rule.table).select([...rule.key]).where(rule.where).limit(options.batchSize);
    if (cursorColumn !== undefined) {
      select.orderBy(cursorColumn);
      if (after !== undefined) select.andWhere(cursorColumn, '>', after as Knex.Value);
    }
    const rows = (await select) as Row[];
    if (rows.length === 0) break;
    const removed = await withTransaction(db, (trx) => {
      const remove = trx(rule.table).where((query) => whereKeys(query, rule.key, rows));
      if (rule.recheck) remove.andWhere(rule.where);
      return remove.delete();
    });
    deleted += removed;
    if (rows.length < options.batchSize) break;
    // A drain batch's rows are gone now, whoever deleted them, so the next SELECT finds the next ones.
    if (cursorColumn !== undefined) after = rows[rows.length - 1]?.[cursorColumn];
  }
  return deleted;
}

/** How many rows `rule` matches now (for --dry-run); rules that depend on an earlier rule's deletions count low. */
export async function countMatches(db: Database, rule: PruneRule): Promise<number> {
  const row = (await db(rule.table).where(rule.where).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
