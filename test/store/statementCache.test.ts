/**
 * The SQLite store keeps prepared statements by SQL text (Kysely's driver would prepare every
 * query anew): the same text gives the same statement, one still being iterated is not
 * handed out again, and the cache stays within its bound.
 */
import SqliteDatabase from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { withStatementCache } from '../../src/store/statementCache.ts';

const open: SqliteDatabase.Database[] = [];
afterEach(() => {
  while (open.length) open.pop()!.close();
});

function memoryDb() {
  const db = new SqliteDatabase(':memory:');
  open.push(db);
  db.exec('create table t (n integer)');
  db.exec('insert into t values (1), (2), (3)');
  return db;
}

describe('SQLite statement cache', () => {
  it('the same SQL text gives the same prepared statement, and it runs with new parameters each time', () => {
    const cached = withStatementCache(memoryDb());
    const a = cached.prepare('select n from t where n >= ? order by n');
    const b = cached.prepare('select n from t where n >= ? order by n');
    expect(b).toBe(a);
    expect(a.all([2])).toEqual([{ n: 2 }, { n: 3 }]);
    expect(b.all([3])).toEqual([{ n: 3 }]);
    expect(cached.prepare('select n from t where n > ?')).not.toBe(a);
  });

  it('a statement still being iterated is not handed out again: the caller gets a fresh one', () => {
    const cached = withStatementCache(memoryDb());
    const sql = 'select n from t order by n';
    const first = cached.prepare(sql);
    const rows = first.iterate([]);
    expect(rows.next().value).toEqual({ n: 1 });
    const second = cached.prepare(sql);
    expect(second).not.toBe(first);
    expect(second.all([])).toHaveLength(3);
    expect([...rows]).toEqual([{ n: 2 }, { n: 3 }]);
    // Iteration over: the cached one is free again.
    expect(cached.prepare(sql)).toBe(first);
  });

  it('holds at most `max` statements, dropping the least recently used', () => {
    const cached = withStatementCache(memoryDb(), 2);
    const one = cached.prepare('select 1');
    const two = cached.prepare('select 2');
    expect(cached.prepare('select 1')).toBe(one); // now the most recent
    cached.prepare('select 3'); // evicts `select 2`
    expect(cached.prepare('select 1')).toBe(one);
    expect(cached.prepare('select 2')).not.toBe(two);
  });
});
