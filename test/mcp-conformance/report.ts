export const LEGEND = '✓ passes every check   – does not apply: fails only the checks expected.yaml lists, for its reason   ✗ unexpected   · not run for that revision';

/** A plain-text table on stdout: one row per scenario or listing, one column per revision and identity. */
export function printTable(title: string, columns: readonly string[], rows: ReadonlyArray<readonly [string, readonly string[]]>): void {
  const width = Math.max(title.length, ...rows.map(([name]) => name.length));
  const cellWidth = Math.max(...columns.map((column) => column.length), 9);
  const line = (name: string, cells: readonly string[]) => `${name.padEnd(width)}  ${cells.map((cell) => cell.padEnd(cellWidth)).join('  ').trimEnd()}\n`;
  process.stdout.write(`\n${line(title, columns)}`);
  for (const [name, cells] of rows) process.stdout.write(line(name, cells));
}
