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
 * The DELETE names the selected rows by key only, so it locks just those rows: a range condition in a DELETE could
 * make InnoDB lock the whole index range (and the gap after it). That is safe because a row the prune selects cannot
 * come back to life (expiry times never move back, revocations are never undone), except where `recheck` says so:
 * then the DELETE applies the condition again.
 */
export interface PruneRule {
  /** The report line this rule adds to. */
  target: string;
  table: string;
  /** The column a DELETE names the selected rows by: the primary key, or its leading column (then with `recheck`). */
  key: string;
  mode: 'drain' | 'cursor';
  where: RowCondition;
  /** Re-apply `where` in the DELETE: the row may have been taken back into use since it was selected, or `key` is not unique. */
  recheck?: boolean;
}

export interface BatchOptions {
  batchSize: number;
  /** Called before every batch: renews the lease, and throws to stop the run (lease lost, shutting down). */
  beforeBatch?: () => Promise<void>;
}

type Row = Record<string, unknown>;
type KeyValue = string | number;

/**
 * Deletes what `rule` matches, at most `batchSize` rows per statement, each DELETE in its own short transaction
 * (withTransaction reruns it if it loses a lock conflict). Never one long transaction: between batches other writers
 * get the rows and the locks back. Returns the rows deleted.
 */
export async function deleteInBatches(db: Database, rule: PruneRule, options: BatchOptions): Promise<number> {
  let deleted = 0;
  let after: KeyValue | undefined;
  for (;;) {
    await options.beforeBatch?.();
    const select = db(rule.table).select(rule.key).where(rule.where).limit(options.batchSize);
    if (rule.mode === 'cursor') {
      select.orderBy(rule.key);
      if (after !== undefined) select.andWhere(rule.key, '>', after);
    }
    const rows = (await select) as Row[];
    if (rows.length === 0) break;
    const removed = await withTransaction(db, (trx) => {
      const remove = trx(rule.table).whereIn(rule.key, [...new Set(rows.map((row) => row[rule.key]))] as KeyValue[]);
      if (rule.recheck) remove.andWhere(rule.where);
      return remove.delete();
    });
    deleted += removed;
    if (rows.length < options.batchSize) break;
    if (rule.mode === 'cursor') after = rows[rows.length - 1]?.[rule.key] as KeyValue;
    // A drain batch that deleted nothing would select the same rows again (someone else deleted them first, or a
    // recheck kept them): leave the rest to the next run rather than loop.
    else if (removed === 0) break;
  }
  return deleted;
}

/** How many rows `rule` matches now (for --dry-run); rules that depend on an earlier rule's deletions count low. */
export async function countMatches(db: Database, rule: PruneRule): Promise<number> {
  const row = (await db(rule.table).where(rule.where).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
