import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';
import { connect, release, unavailable } from './database.js';
import { SchemaVersionError } from './errors.js';

/**
 * The schema of the PostgreSQL state, as numbered SQL files shipped in the package
 * (`migrations/0001_state.sql`, ...). `migrate` applies each missing one in a transaction of its
 * own that first takes one advisory lock, so any number of processes may migrate at once: one
 * applies, the others wait and then find nothing left to do.
 */

const FOLDER = fileURLToPath(new URL('../migrations/', import.meta.url));
const FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
/** Every process migrating any database of the server takes this one lock: migrations are rare and short. */
const LOCK = "SELECT pg_advisory_xact_lock(hashtext('plugboard_migrations'))";
const LEDGER = `CREATE TABLE IF NOT EXISTS plugboard_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/** One migration: a numbered SQL file of the package. */
export interface Migration {
  /** Its number: 1 for `0001_state.sql`. */
  version: number;
  /** The file name without its number and extension: `state`. */
  name: string;
}

/** What `migrate` did. */
export interface MigrationReport {
  /** The server migrated, as it may be shown: a URL's password masked. */
  server: string;
  /** The migrations this call applied, in order; empty when the schema was current. */
  applied: Migration[];
  /** The newest migration the database has now. */
  version: number;
}

let known: Promise<Array<Migration & { sql: string }>> | undefined;

/** The package's migrations in order; numbered 1, 2, 3 ... without a gap. */
function migrations(): Promise<Array<Migration & { sql: string }>> {
  known ??= (async () => {
    const names = (await readdir(FOLDER)).filter((name) => FILE.test(name)).sort();
    return Promise.all(
      names.map(async (file, index) => {
        const [, number, name] = FILE.exec(file)!;
        if (Number(number) !== index + 1)
          throw new Error(`migration ${file} is out of sequence: expected ${index + 1}`);
        return { version: index + 1, name: name!, sql: await readFile(`${FOLDER}${file}`, 'utf8') };
      }),
    );
  })();
  return known;
}

/** The newest migration applied to a database; 0 when none was (no ledger yet). */
async function appliedVersion(client: pg.Pool | pg.PoolClient): Promise<number> {
  try {
    const { rows } = await client.query<{ version: number }>(
      'SELECT coalesce(max(version), 0)::integer AS version FROM plugboard_migrations',
    );
    return rows[0]!.version;
  } catch (error) {
    if ((error as { code?: string }).code === '42P01') return 0; // undefined_table: never migrated
    throw error;
  }
}

/** Applies one migration unless another process already did; returns whether this one applied it. */
async function applyOne(client: pg.PoolClient, migration: Migration & { sql: string }, newest: number) {
  await client.query('BEGIN');
  try {
    await client.query(LOCK);
    await client.query(LEDGER);
    const current = await appliedVersion(client);
    if (current > newest) throw new SchemaVersionError(current, newest);
    const due = current < migration.version;
    if (due) {
      await client.query(migration.sql);
      await client.query('INSERT INTO plugboard_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
    return due;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * Brings a database's schema up to this code's: applies each migration it lacks, in order, one
 * transaction each. A database migrated by newer code is refused (`SchemaVersionError`).
 */
export async function migrate(target: string | pg.Pool): Promise<MigrationReport> {
  const connection = connect(target);
  try {
    const all = await migrations();
    const newest = all.length;
    const applied: Migration[] = [];
    for (const migration of all) {
      const client = await connection.pool.connect();
      try {
        if (await applyOne(client, migration, newest))
          applied.push({ version: migration.version, name: migration.name });
      } finally {
        client.release();
      }
    }
    return { server: connection.server, applied, version: await appliedVersion(connection.pool) };
  } catch (error) {
    throw unavailable(error, connection.server);
  } finally {
    await release(connection);
  }
}

/**
 * Refuses a database whose schema is not this code's: older (`schema_out_of_date`: run
 * `plugboard db migrate --postgres URL`) or newer (`schema_too_new`). A host calls it once at start.
 */
export async function assertMigrated(target: string | pg.Pool): Promise<void> {
  const connection = connect(target);
  try {
    const [applied, newest] = [await appliedVersion(connection.pool), (await migrations()).length];
    if (applied !== newest) throw new SchemaVersionError(applied, newest);
  } catch (error) {
    throw unavailable(error, connection.server);
  } finally {
    await release(connection);
  }
}
