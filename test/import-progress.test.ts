import { expect } from 'chai';
import { importProgressDisplay, ImportProgressDisplay, progressLine, REDRAW_INTERVAL_MS, type ProgressStream } from '../src/cli/import-progress.js';
import { buildDemoDocument } from '../src/demo/demo-school.js';
import { importSiteDocument, type ImportProgress, type ImportTable } from '../src/import/import-site.js';
import { describeEachDatabase } from './support/databases.js';

/** A stand-in for process.stderr that keeps what is written, and a clock the test moves. */
function terminal(isTTY: boolean, columns?: number): ProgressStream & { output: string } {
  const stream = { isTTY, columns, output: '', write: (text: string) => (stream.output += text) };
  return stream;
}

function clock(): { now: () => number; advance: (ms: number) => void } {
  let time = 0;
  return { now: () => time, advance: (ms) => (time += ms) };
}

const report = (table: ImportTable, done: number, total: number, finished = false): ImportProgress => ({ table, done, total, finished });

describe('import progress display', () => {
  it('draws a bar of records written out of the records in the document', () => {
    expect(progressLine(report('courses', 120, 240))).to.equal(`courses${' '.repeat(21)} [##########··········]  120/240`);
    expect(progressLine(report('courses', 0, 240))).to.match(/\[·{20}\] {4}0\/240$/);
    expect(progressLine(report('users', 5010, 5010), 1834)).to.equal(`users${' '.repeat(23)} [${'#'.repeat(20)}]  5010/5010  1.8 s`);
  });

  it('on a terminal redraws the line in place at most ten times a second and finishes it with the time taken', () => {
    const stream = terminal(true);
    const time = clock();
    const display = new ImportProgressDisplay(stream, time.now);
    display.update(report('enrollments', 0, 1000));
    for (let done = 1; done <= 1000; done += 1) {
      display.update(report('enrollments', done, 1000));
      time.advance(1); // a record a millisecond: a second for the table
    }
    display.update(report('enrollments', 1000, 1000, true));
    const draws = stream.output.split('\r').filter(Boolean);
    expect(draws.length).to.be.within(10, 12); // the first draw, one per 100 ms, the finished line
    expect(draws[0]).to.equal(progressLine(report('enrollments', 0, 1000)));
    expect(draws.at(-1)).to.equal(`${progressLine(report('enrollments', 1000, 1000), 1000)}\n`);
    expect(stream.output.split('\n')).to.have.length(2); // one finished line, nothing after it
    expect(REDRAW_INTERVAL_MS).to.equal(100);
  });

  it('gives every table a line of its own, in the order the importer writes them', () => {
    const stream = terminal(true);
    const display = new ImportProgressDisplay(stream, clock().now);
    for (const table of ['sites', 'users'] as const) {
      display.update(report(table, 0, 2));
      display.update(report(table, 1, 2));
      display.update(report(table, 2, 2, true));
    }
    const lines = stream.output.split('\n').map((line) => line.split('\r').at(-1));
    expect(lines).to.deep.equal([progressLine(report('sites', 2, 2), 0), progressLine(report('users', 2, 2), 0), '']);
  });

  it('ends an unfinished line when the import fails or starts over, so what follows starts on its own line', () => {
    const stream = terminal(true);
    const display = new ImportProgressDisplay(stream, clock().now);
    display.update(report('users', 0, 10));
    display.update(report('sites', 0, 1)); // a retried transaction starts again from the site
    expect(stream.output).to.equal(`\r${progressLine(report('users', 0, 10))}\n\r${progressLine(report('sites', 0, 1))}`);
    display.close();
    expect(stream.output.endsWith('\n')).to.equal(true);
    display.close();
    expect(stream.output.endsWith('\n\n')).to.equal(false);
  });

  it('keeps a line within the terminal width, so \\r redraws all of it', () => {
    const stream = terminal(true, 40);
    const display = new ImportProgressDisplay(stream, clock().now);
    display.update(report('notification_subscriptions', 3, 9));
    expect(stream.output).to.equal(`\r${progressLine(report('notification_subscriptions', 3, 9)).slice(0, 39)}`);
  });

  it('where nothing redraws (a log, a pipe) writes only the finished lines, and with --json nothing at all', () => {
    const log = terminal(false);
    const display = importProgressDisplay(log, { json: false, now: clock().now });
    display?.update(report('courses', 0, 2));
    display?.update(report('courses', 1, 2));
    display?.update(report('courses', 2, 2, true));
    display?.close();
    expect(log.output).to.equal(`${progressLine(report('courses', 2, 2), 0)}\n`);

    expect(importProgressDisplay(terminal(false), { json: true })).to.equal(undefined);
    expect(importProgressDisplay(terminal(true), { json: true })).to.be.an.instanceOf(ImportProgressDisplay);
  });
});

describeEachDatabase('import progress reports', (scratch) => {
  it('reports each section from 0 to its record count, in the order written, finishing each once', async () => {
    const document = buildDemoDocument('https://progress.example', new Date());
    const reports: ImportProgress[] = [];
    const result = await importSiteDocument(scratch().db, document, { onProgress: (progress) => reports.push(progress) });

    const tables = [...new Set(reports.map((one) => one.table))];
    expect(tables.slice(0, 4)).to.deep.equal(['sites', 'users', 'lecturer_profiles', 'courses']);
    for (const table of tables) {
      const own = reports.filter((one) => one.table === table);
      const total = own[0]?.total ?? 0;
      expect(own.map((one) => one.done), table).to.deep.equal([...Array.from({ length: total + 1 }, (_, done) => done), total]);
      expect(own.map((one) => one.finished), table).to.deep.equal([...Array<boolean>(total + 1).fill(false), true]);
    }
    // Every report of a section comes before the next section starts.
    expect(reports.map((one) => one.table).filter((table, index, all) => table !== all[index - 1])).to.deep.equal(tables);
    expect(reports.find((one) => one.table === 'users')?.total).to.equal(document.users?.length);
    expect(reports.find((one) => one.table === 'courses')?.total).to.equal(document.courses?.length);
    expect(result.counts.courses.created).to.equal(document.courses?.length);

    // Again, with every record already equal: the same reports.
    const again: ImportProgress[] = [];
    await importSiteDocument(scratch().db, document, { onProgress: (progress) => again.push(progress) });
    expect(again).to.deep.equal(reports);
  });
});
