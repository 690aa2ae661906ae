/**
 * Prepared statements each connection keeps, on either store (the least recently used is dropped past it, and closed
 * on MySQL). The SQL of a query is fixed by its shape: each statement is built once and only bound, with one text per
 * number of values up to a page of 100 (src/db/compiled-select.ts), so a few hundred texts cover the application.
 * Kept bounded on MySQL too: mysql2's own default (16,000) allocates its bookkeeping for that many on every connection
 * (about 0.5 MB each, for the connection's life) and would let a few instances' connections hold more statements than
 * the server's `max_prepared_stmt_count` (16,382 by default on MariaDB and MySQL).
 */
export const PREPARED_STATEMENTS_PER_CONNECTION = 500;
