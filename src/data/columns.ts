/**
 * Column lists of the data modules as knex select arguments. Each table's module names its columns once; a query
 * selects them qualified by the table (or its alias), so joins stay unambiguous, and the rows carry the bare column
 * names its `fromRow` reads.
 */

/** `table.column as column` for each column; `renames` gives a column another name in the row (joins of two ids). */
export function selectColumns<Column extends string>(table: string, columns: readonly Column[], renames: Partial<Record<Column, string>> = {}): string[] {
  return columns.map((column) => `${table}.${column} as ${renames[column] ?? column}`);
}

/** The row of one table out of a joined row whose columns were selected with `renames`. */
export function renamedBack<Row>(row: Record<string, unknown>, renames: Readonly<Record<string, string>>): Row {
  const own: Record<string, unknown> = { ...row };
  for (const [column, alias] of Object.entries(renames)) own[column] = row[alias];
  return own as Row;
}

/** `table.column as <prefix>column` for each column: one table's columns beside another's in a join. */
export function prefixedColumns(table: string, columns: readonly string[], prefix: string): string[] {
  return columns.map((column) => `${table}.${column} as ${prefix}${column}`);
}

/** The row of one table out of a joined row whose columns were selected with `prefixedColumns`. */
export function unprefixed<Row>(row: Record<string, unknown>, columns: readonly string[], prefix: string): Row {
  return Object.fromEntries(columns.map((column) => [column, row[`${prefix}${column}`]])) as Row;
}
