import { expect } from 'chai';
import type { Database } from '../src/db/connection.js';
import { decodeCursor, encodeCursor, fitsKey, keyValuesOf, orderByKeys, trimPage, whereBeyond, type KeyColumn, type KeyValue } from '../src/db/keyset.js';
import { createScratchDatabase, TEST_DATABASE_KINDS, type ScratchDatabase } from './support/databases.js';

describe('the keyset pagination core (src/db/keyset.ts)', () => {
  describe('cursors', () => {
    it('round-trip any JSON payload as base64url', () => {
      const cursor = encodeCursor({ v: 1, value: 'a/b+c', id: 7 });
      expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
      expect(decodeCursor(cursor)).to.deep.equal({ v: 1, value: 'a/b+c', id: 7 });
      expect(decodeCursor(encodeCursor([1, 'x']))).to.deep.equal([1, 'x']);
    });

    it('decode what is not base64url JSON to undefined', () => {
      expect(decodeCursor('!!!')).to.equal(undefined);
      expect(decodeCursor(Buffer.from('{"a":').toString('base64url'))).to.equal(undefined);
    });

    it('check a value against the type of its key', () => {
      expect(fitsKey(1_700_000_000_000, 'time')).to.equal(true);
      expect(fitsKey(1.5, 'time')).to.equal(false);
      expect(fitsKey(1.5, 'number')).to.equal(true);
      expect(fitsKey(Number.NaN, 'number')).to.equal(false);
      expect(fitsKey('x', 'string')).to.equal(true);
      expect(fitsKey(3, 'string')).to.equal(false);
      expect(fitsKey(3, 'id')).to.equal(true);
      expect(fitsKey(0, 'id')).to.equal(false);
      expect(fitsKey('3', 'id')).to.equal(false);
    });
  });

  describe('trimPage', () => {
    it('drops the row fetched beyond the page and says it came', () => {
      expect(trimPage([1, 2, 3], 2)).to.deep.equal({ rows: [1, 2], hasMore: true });
      expect(trimPage([1, 2], 2)).to.deep.equal({ rows: [1, 2], hasMore: false });
    });

    it('puts rows fetched against the order back in the order', () => {
      expect(trimPage([5, 4, 3], 2, true)).to.deep.equal({ rows: [4, 5], hasMore: true });
    });
  });

  describe('keyValuesOf', () => {
    it('reads times as epoch milliseconds, ids as numbers and strings as strings, by the column name without its table', () => {
      const keys: KeyColumn[] = [
        { column: 't.at', descending: true, type: 'time' },
        { column: 't.name', descending: false, type: 'string' },
        { column: 't.id', descending: true, type: 'id' },
      ];
      expect(keyValuesOf({ at: '2026-01-02T03:04:05.000Z', name: 7, id: '12' }, keys)).to.deep.equal([Date.UTC(2026, 0, 2, 3, 4, 5), '7', 12]);
      expect(keyValuesOf({ at: new Date(5), name: 'x', id: 1 }, keys)).to.deep.equal([5, 'x', 1]);
    });
  });

  for (const kind of TEST_DATABASE_KINDS) {
    describe(`paging a table both ways [${kind}]`, function () {
      this.timeout(60_000);
      let scratch: ScratchDatabase;
      let db: Database;
      // Ties on the time and the name make the later keys decide.
      const rows = Array.from({ length: 23 }, (_, index) => ({ id: index + 1, at: new Date(Date.UTC(2026, 0, 1 + (index % 5))), name: `n${index % 3}` }));
      const keys: KeyColumn[] = [
        { column: 'items.at', descending: true, type: 'time' },
        { column: 'items.name', descending: false, type: 'string' },
        { column: 'items.id', descending: true, type: 'id' },
      ];
      const expected = [...rows].sort((a, b) => b.at.getTime() - a.at.getTime() || a.name.localeCompare(b.name) || b.id - a.id).map((row) => row.id);

      before(async () => {
        scratch = await createScratchDatabase(kind, { migrate: false });
        db = scratch.db;
        await db.schema.createTable('items', (table) => {
          table.integer('id').primary();
          table.timestamp('at', { precision: 3 }).notNullable();
          table.string('name', 20).notNullable();
        });
        await db('items').insert(rows);
      });
      after(async () => {
        await scratch.drop();
      });

      async function pageOf(size: number, position: KeyValue[] | null, side: 'after' | 'before'): Promise<{ ids: number[]; hasMore: boolean; first: KeyValue[] | null; last: KeyValue[] | null }> {
        const query = db('items').select('id', 'at', 'name');
        if (position) whereBeyond(query, keys, position, side);
        const reversed = side === 'before';
        orderByKeys(query, keys, reversed);
        const page = trimPage((await query.limit(size + 1)) as Array<Record<string, unknown>>, size, reversed);
        const values = page.rows.map((row) => keyValuesOf(row, keys));
        return { ids: page.rows.map((row) => Number(row.id)), hasMore: page.hasMore, first: values[0] ?? null, last: values.at(-1) ?? null };
      }

      it('walks forward through every row once, in the order of the keys', async () => {
        const seen: number[] = [];
        let position: KeyValue[] | null = null;
        for (;;) {
          const page = await pageOf(4, position, 'after');
          seen.push(...page.ids);
          if (!page.hasMore) break;
          position = page.last;
        }
        expect(seen).to.deep.equal(expected);
      });

      it('walks backward from the end through every row once, each page in the order of the keys', async () => {
        const pages: number[][] = [];
        let position: KeyValue[] | null = null;
        for (;;) {
          const page = await pageOf(5, position, 'before');
          pages.unshift(page.ids);
          if (!page.hasMore) break;
          position = page.first;
        }
        expect(pages.flat()).to.deep.equal(expected);
      });

      it('goes back from a position to exactly the rows before it', async () => {
        const forward = await pageOf(6, null, 'after');
        const next = await pageOf(6, forward.last, 'after');
        const back = await pageOf(6, next.first, 'before');
        expect(back.ids).to.deep.equal(forward.ids);
        expect(back.hasMore).to.equal(false);
      });
    });
  }
});
