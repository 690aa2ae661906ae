import type { ImportProgress } from '../import/import-site.js';

/** Where progress goes: process.stderr, or a stand-in in tests. */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** The terminal's width: a line longer than it would wrap, and \r would then redraw only its last part. */
  columns?: number;
}

export interface ImportProgressOptions {
  /** --json: where nothing redraws (not a terminal), print nothing, so scripts see only errors on stderr. */
  json: boolean;
  /** The clock in milliseconds; tests pass their own. */
  now?: () => number;
}

const BAR_WIDTH = 20;
/** The longest table name, as in the import's summary, so the bars line up. */
const LABEL_WIDTH = 28;
/** At most ten redraws a second: smooth enough to watch, and a cost the import never notices. */
export const REDRAW_INTERVAL_MS = 100;

/** `courses                      [##########··········]  120/240`, plus the time taken once the table is done. */
export function progressLine({ table, done, total }: ImportProgress, elapsedMs?: number): string {
  const filled = total === 0 ? BAR_WIDTH : Math.floor((Math.min(done, total) / total) * BAR_WIDTH);
  const bar = `${'#'.repeat(filled)}${'·'.repeat(BAR_WIDTH - filled)}`;
  const count = `${String(done).padStart(String(total).length)}/${total}`;
  const time = elapsedMs === undefined ? '' : `  ${(elapsedMs / 1000).toFixed(1)} s`;
  return `${table.padEnd(LABEL_WIDTH)} [${bar}]  ${count}${time}`;
}

/**
 * An import's progress on stderr, one line per table in the order they are written. On a terminal the line of the
 * table being written is redrawn in place (\r) as its records go in, then finished with the time it took; elsewhere
 * (a CI log, a file) only the finished lines are written, since nothing there can redraw.
 */
export class ImportProgressDisplay {
  /** The table whose line is open (drawn on a terminal, not yet finished). */
  private open: { table: string; startedAt: number } | undefined;
  private lastDrawAt = -Infinity;

  constructor(
    private readonly stream: ProgressStream,
    private readonly now: () => number = () => performance.now(),
  ) {}

  private get live(): boolean {
    return Boolean(this.stream.isTTY);
  }

  /** The importer's onProgress: called for every record, so all but a few calls a second return at once. */
  readonly update = (progress: ImportProgress): void => {
    const now = this.now();
    if (this.open?.table !== progress.table) {
      // A new table; an unfinished line before it means the importer started over (a retried transaction).
      this.close();
      this.open = { table: progress.table, startedAt: now };
      this.lastDrawAt = -Infinity;
    }
    if (progress.finished) {
      this.stream.write(`${this.live ? '\r' : ''}${this.fit(progressLine(progress, now - this.open.startedAt))}\n`);
      this.open = undefined;
      return;
    }
    if (!this.live || now - this.lastDrawAt < REDRAW_INTERVAL_MS) return;
    this.lastDrawAt = now;
    this.stream.write(`\r${this.fit(progressLine(progress))}`);
  };

  /** Ends a line left unfinished (the import failed part-way), so what follows starts on a line of its own. */
  close(): void {
    if (this.open && this.live) this.stream.write('\n');
    this.open = undefined;
  }

  private fit(line: string): string {
    const width = this.stream.columns;
    return width !== undefined && width > 0 && line.length >= width ? line.slice(0, width - 1) : line;
  }
}

/** The display for `schoolgate import`, or undefined when it would print nothing (--json, not a terminal). */
export function importProgressDisplay(stream: ProgressStream, options: ImportProgressOptions): ImportProgressDisplay | undefined {
  if (options.json && !stream.isTTY) return undefined;
  return new ImportProgressDisplay(stream, options.now);
}
