import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.ts';
import { withStatementCache } from './statementCache.ts';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, restrictFile } from '../privateFiles.ts';

/**
 * Opens (creating if needed) the embedded SQLite store. WAL lets the CLI read and write
 * while the server runs; busy_timeout makes the two processes wait for each other instead
 * of failing with SQLITE_BUSY.
 *
 * The file is created 0600 before SQLite opens it: SQLite gives its -wal and -shm files the
 * database file's mode, so all three stay private. Files of older versions are narrowed.
 */
export function openSqlite(file: string): Kysely<Database> {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: PRIVATE_DIR_MODE }); // the data dir itself is narrowed by the runtime
  fs.closeSync(fs.openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const f of [file, `${file}-wal`, `${file}-shm`]) restrictFile(f);
  const sqlite = new SqliteDatabase(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
}
