import type pg from 'pg';
import { type Connection, connect, type Database, database, release, unavailable } from '../database.js';
import { checkedKey, jsonText } from '../limits.js';
import { defaultTableName, quotedTable } from './names.js';
import { checkPage } from './page.js';
import { type PageStatement, pageStatement } from './statement.js';
import { tableMaker } from './tables.js';

/**
 * A sink with exactly-once delivery: each page's records are upserted into the stream's table
 * and the stream's checkpoint (the row the checkpoint store of `postgresStores` keeps) is moved
 * by compare-and-set in the same transaction. A page whose starting checkpoint is no longer the
 * stream's was written already (or by another run): nothing is written, and `write` says so.
 */

const SUBJECT = 'PostgreSQL sink';

/** Which stream a page belongs to, and the record field it is kept under. */
export interface SinkStream {
  /** The checkpoint stream's name, as the executor keeps it (`request.stream` or `streamKey`). */
  name: string;
  /** The record field whose value is the row's key. Default `id`. */
  keyField?: string;
}

/** A page as the sink writes it: its records and the checkpoint (as the store keeps it) it moves the stream to. */
export interface SinkPage {
  records: readonly unknown[];
  /** Undefined: the stream's checkpoint stays where it is (still compared). */
  checkpoint?: unknown;
}

export interface PostgresSinkOptions {
  /** The table of a stream: a lower-case identifier. Default `plugboard_sink_` and the stream's name, with a hash of it. */
  table?: (stream: string) => string;
}

/** What else a page's transaction does. */
export interface SinkWriteOptions {
  /** A run's id in `plugboard_runs`: a page written adds its records to the run's received and processed counts, in the same transaction. */
  countIn?: string;
}

export interface PostgresSink {
  /**
   * Writes the page and moves the checkpoint in one transaction, only while the stream's stored
   * checkpoint is `startedAt` (undefined: none stored yet). `skipped`: it was not; nothing written.
   */
  write(
    stream: string | SinkStream,
    page: SinkPage,
    startedAt: unknown,
    options?: SinkWriteOptions,
  ): Promise<'written' | 'skipped'>;
  /** The stream's stored checkpoint (as `postgresStores(pool).checkpoints.get` reads it). */
  checkpoint(stream: string): Promise<unknown>;
  /** The stream's table name, unquoted. */
  table(stream: string): string;
  /** Ends the pool when the sink made it from a URL; a pool the host gave stays open. */
  close(): Promise<void>;
}

/** Runs a page's named statement (`Database.query` takes text only); answers whether the checkpoint moved. */
async function moved(connection: Connection, statement: PageStatement): Promise<boolean> {
  try {
    const { rows } = await connection.pool.query<{ moved: number }>(statement);
    return rows[0]?.moved === 1;
  } catch (error) {
    throw unavailable(error, connection.server);
  }
}

function writer(connection: Connection, db: Database, tableOf: (stream: string) => string): PostgresSink['write'] {
  const make = tableMaker(db);
  return async (stream, page, startedAt, options = {}) => {
    const { name, keyField = 'id' } = typeof stream === 'string' ? { name: stream } : stream;
    checkedKey(name, SUBJECT, 'stream');
    const checked = checkPage(page.records, keyField);
    const to = page.checkpoint === undefined ? null : jsonText(page.checkpoint, SUBJECT, 'checkpoint');
    const from = startedAt === undefined ? null : jsonText(startedAt, SUBJECT, 'startedAt');
    const quoted = quotedTable(tableOf(name));
    await make(quoted);
    const records = `[${checked.records.join(',')}]`;
    const statement = pageStatement(quoted, name, { keys: checked.keys, records, to, from, run: options.countIn });
    return (await moved(connection, statement)) ? 'written' : 'skipped';
  };
}

/** The sink on the host's pool, or on a pool of its own for a URL (ended by `close`); migrated (`migrate`). */
export function postgresSink(target: pg.Pool | string, options: PostgresSinkOptions = {}): PostgresSink {
  const connection = connect(target);
  const db = database(connection.pool);
  const tableOf = options.table ?? defaultTableName;
  return {
    write: writer(connection, db, tableOf),
    async checkpoint(stream) {
      const { rows } = await db.query<{ checkpoint: unknown }>(
        'SELECT checkpoint FROM plugboard_checkpoints WHERE stream = $1',
        [checkedKey(stream, SUBJECT, 'stream')],
      );
      return rows[0]?.checkpoint;
    },
    table: (stream) => {
      const name = tableOf(stream);
      quotedTable(name);
      return name;
    },
    close: () => release(connection),
  };
}
