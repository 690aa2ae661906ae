import type { Knex } from 'knex';

/** Shared column conventions for the migrations: UTC datetimes with milliseconds, unsigned integer keys. */
export function timestamps(table: Knex.CreateTableBuilder): void {
  table.datetime('created_at', { precision: 3 }).notNullable();
  table.datetime('updated_at', { precision: 3 }).notNullable();
}

export function time(table: Knex.CreateTableBuilder, name: string): Knex.ColumnBuilder {
  return table.datetime(name, { precision: 3 });
}

type OnDelete = 'CASCADE' | 'RESTRICT' | 'SET NULL';

/** A foreign key column referencing `<table>.id`; `onDelete` says whether the child goes with its parent. */
export function reference(
  table: Knex.CreateTableBuilder,
  column: string,
  target: string,
  onDelete: OnDelete,
  nullable = false,
): Knex.ColumnBuilder {
  const builder = table.integer(column).unsigned();
  if (nullable) builder.nullable();
  else builder.notNullable();
  table.foreign(column).references('id').inTable(target).onDelete(onDelete);
  return builder;
}

/** Money is integer minor units plus an ISO 4217 currency code. */
export function money(table: Knex.CreateTableBuilder, prefix: string, nullable = false): void {
  const amount = table.bigInteger(`${prefix}_amount`);
  const currency = table.string(`${prefix}_currency`, 3);
  if (nullable) {
    amount.nullable();
    currency.nullable();
  } else {
    amount.notNullable();
    currency.notNullable();
  }
}

/** `external_id` is the key an import document gives a record; re-imports match on it. */
export function externalId(table: Knex.CreateTableBuilder, scope: string): void {
  table.string('external_id', 191).nullable();
  table.unique([scope, 'external_id']);
}
