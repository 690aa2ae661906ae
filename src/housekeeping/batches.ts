import type { Knex } from 'knex';
import type { Database } from '../db/connection.js';
import { isMysql } from '../db/dialect.js';
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
 * - `orphans`: the rows whose `orphans.column` names a row of `orphans.parent` that is gone. The distinct values of
 *   the column are walked one index seek at a time (few: one per client), each is looked up in the parent table by
 *   primary key, and the rows of a value that is gone are drained. No statement reads the rows of a live value.
 *
 * The DELETE names the selected rows by their whole primary key only, so it locks just those rows: a range condition
 * in a DELETE could make InnoDB lock the whole index range (and the gap after it). That is safe because a row the
 * prune selects cannot come back to life (expiry times never move back, revocations are never undone), except where
 * `recheck` says so: then the DELETE applies the condition again.
 */
export interface PruneRule {
  /** The report line this rule adds to. */
  target: string;
  table: string;
  /** The primary key's columns: a DELETE names each selected row by all of them. */
  key: string | readonly string[];
  mode: 'drain' | 'cursor' | 'orphans';
  where: RowCondition;
  /** Re-apply `where` in the DELETE: the row may have been taken back into use since it was selected. */
  recheck?: boolean;
  /** mode `orphans`: the indexed column naming the parent's `id`, and the values above which to look (0 = nobody). */
  orphans?: { column: string; parent: string; above: number };
}

export interface BatchOptions {
  batchSize: number;
  /** Called before every batch: renews the lease, and throws to stop the run (lease lost, shutting down). */
  beforeBatch?: () => Promise<void>;
  /** Called after every batch that found rows, with the milliseconds it took: the pause that bounds the prune's share (prune.ts). */
  afterBatch?: (batchMs: number) => Promise<void>;
  /** Milliseconds from any fixed origin (performance.now unless a test says otherwise). */
  clock?: () => number;
}

type Row = Record<string, unknown>;
type KeyValue = string | number;

function keyColumns(rule: PruneRule): string[] {
  return typeof rule.key === 'string' ? [rule.key] : [...rule.key];
}

/**
 * Names every selected row exactly: `key IN (…)` for one column. A composite key is `(a, b) IN ((…), …)` on SQLite,
 * but `(a = ? AND b = ?) OR …` on MySQL/MariaDB, whose range optimizer gives up on a row IN list of a few hundred
 * five-column rows and scans the table instead (EXPLAIN shows type ALL), while it reads the OR form as one range per row.
 * SQLite would refuse that form: each OR is one level of its expression tree, at most 1000 deep.
 */
function whereKeys(db: Database, query: Knex.QueryBuilder, columns: string[], rows: Row[]): void {
  const [only] = columns;
  if (columns.length === 1 && only !== undefined) query.whereIn(only, [...new Set(rows.map((row) => row[only]))] as KeyValue[]);
  else if (!isMysql(db)) query.whereIn(columns, rows.map((row) => columns.map((column) => row[column])) as KeyValue[][]);
  else {
    query.where((any) => {
      for (const row of rows) any.orWhere((one) => void columns.forEach((column) => one.where(column, row[column] as KeyValue)));
    });
  }
}

/** One batch: select at most `batchSize` keys, delete exactly those rows in a short transaction of its own. */
async function runBatch(db: Database, rule: PruneRule, columns: string[], select: Knex.QueryBuilder, where: RowCondition): Promise<{ rows: Row[]; removed: number }> {
  const rows = (await select) as Row[];
  if (rows.length === 0) return { rows, removed: 0 };
  const removed = await withTransaction(db, (trx) => keyedDelete(trx, rule, rows, where));
  return { rows, removed };
}

/** The DELETE of exactly the selected `rows` (by their whole key), with the rule's condition again if it rechecks. */
export function keyedDelete(db: Database, rule: PruneRule, rows: Row[], where: RowCondition = rule.where): Knex.QueryBuilder {
  const remove = db(rule.table);
  whereKeys(db, remove, keyColumns(rule), rows);
  if (rule.recheck) remove.andWhere(where);
  return remove.delete();
}

/**
 * Deletes what `rule` matches, at most `batchSize` rows per statement, each DELETE in its own short transaction
 * (withTransaction reruns it if it loses a lock conflict). Never one long transaction: between batches other writers
 * get the rows and the locks back. Returns the rows deleted.
 */
export async function deleteInBatches(db: Database, rule: PruneRule, options: BatchOptions): Promise<number> {
  if (rule.mode === 'orphans') return deleteOrphans(db, rule, options);
  return drainOrWalk(db, rule, rule.where, options);
}

async function drainOrWalk(db: Database, rule: PruneRule, where: RowCondition, options: BatchOptions): Promise<number> {
  const columns = keyColumns(rule);
  const [cursorKey] = columns;
  if (rule.mode === 'cursor' && (columns.length !== 1 || cursorKey === undefined)) throw new Error(`a cursor prune rule needs a one-column key (${rule.table})`);
  const clock = options.clock ?? (() => performance.now());
  let deleted = 0;
  let after: KeyValue | undefined;
  for (;;) {
    await options.beforeBatch?.();
    const started = clock();
    const select = db(rule.table).select(columns).where(where).limit(options.batchSize);
    if (rule.mode === 'cursor' && cursorKey !== undefined) {
      select.orderBy(cursorKey);
      if (after !== undefined) select.andWhere(cursorKey, '>', after);
    }
    const { rows, removed } = await runBatch(db, rule, columns, select, where);
    deleted += removed;
    const batchMs = clock() - started;
    // An empty SELECT is one index seek: nothing to rest from.
    if (rows.length > 0) await options.afterBatch?.(batchMs);
    if (rows.length < options.batchSize) break;
    if (rule.mode === 'cursor' && cursorKey !== undefined) after = rows[rows.length - 1]?.[cursorKey] as KeyValue;
    // A drain batch that deleted nothing would select the same rows again (someone else deleted them first, or a
    // recheck kept them): leave the rest to the next run rather than loop.
    else if (removed === 0) break;
  }
  return deleted;
}

async function deleteOrphans(db: Database, rule: PruneRule, options: BatchOptions): Promise<number> {
  const orphans = rule.orphans;
  if (!orphans) throw new Error(`an orphans prune rule needs its parent (${rule.table})`);
  const { column, parent } = orphans;
  let deleted = 0;
  let after: KeyValue = orphans.above;
  for (;;) {
    await options.beforeBatch?.();
    // The next distinct value: one seek in the column's index (migration 0022), however many rows each value has.
    const next = (await db(rule.table).min({ value: column }).where(column, '>', after).first()) as { value: KeyValue | null } | undefined;
    if (next?.value === null || next?.value === undefined) break;
    const value = next.value;
    after = value;
    if (await db(parent).where('id', value).first('id')) continue;
    // The DELETE checks again that the parent is still gone (an id is never handed out twice, but it costs one seek).
    const gone: RowCondition = (q) => {
      q.where(column, value).whereNotExists((sub) => sub.select('*').from(parent).where('id', value));
    };
    deleted += await drainOrWalk(db, { ...rule, mode: 'drain', recheck: true }, gone, options);
  }
  return deleted;
}

/** How many rows `rule` matches now (for --dry-run); rules that depend on an earlier rule's deletions count low. */
export async function countMatches(db: Database, rule: PruneRule): Promise<number> {
  const count = db(rule.table).where(rule.where).count({ n: '*' });
  const { orphans } = rule;
  if (rule.mode === 'orphans' && orphans) {
    count.where(orphans.column, '>', orphans.above).whereNotExists((sub) => sub.select('*').from(orphans.parent).whereRaw('?? = ??', [`${orphans.parent}.id`, `${rule.table}.${orphans.column}`]));
  }
  const row = (await count.first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
