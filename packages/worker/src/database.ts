import { ConnectorError, InvalidInputError } from '@plugboard/sdk';
import pg from 'pg';
import { DatabaseUnavailableError } from './errors.js';

/**
 * Where the stores and the migrations get their connections: a `pg.Pool` the host made, or one
 * made here from a URL. Connection failures become `DatabaseUnavailableError`s that name the
 * server with its password masked.
 */

/** A pool, and whether it is ours to end. */
export interface Connection {
  pool: pg.Pool;
  /** The server as messages name it: the URL with its password masked, or host and port. */
  server: string;
  owned: boolean;
}

/** The URL as it may be shown: its password masked, and nothing past the database name. */
export function redactUrl(url: URL): string {
  const shown = new URL(url.href);
  if (shown.password !== '') shown.password = '***';
  shown.search = '';
  shown.hash = '';
  return shown.href;
}

/** Parses a PostgreSQL URL, or says which field is wrong without quoting it (it may hold a password). */
export function parseUrl(url: string, field: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new InvalidInputError('PostgreSQL', [
      { path: field, message: 'is not a URL; give postgres://USER:PASSWORD@HOST:PORT/DATABASE' },
    ]);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw new InvalidInputError('PostgreSQL', [
      { path: field, message: `must be a postgres:// URL, not ${parsed.protocol}//` },
    ]);
  }
  return parsed;
}

/** The server a pool the host made connects to, as messages name it. */
function serverOf(pool: pg.Pool): string {
  const options = pool.options as { host?: string; port?: number; database?: string; connectionString?: string };
  // A pool made from a URL keeps it, not its parts: the URL, its password masked.
  if (options.connectionString && URL.canParse(options.connectionString))
    return redactUrl(new URL(options.connectionString));
  return `${options.host ?? 'localhost'}:${options.port ?? 5432}/${options.database ?? ''}`;
}

/**
 * How long a pool made from a URL waits for a connection, a new one or one of the pool's, before
 * the statement fails `DatabaseUnavailableError`: the URL's `connect_timeout` (whole seconds, as
 * libpq reads it; 0 waits for ever), else this. Without it a server that stops answering (a host
 * gone from the network, a stalled failover) would hold every caller, and their requests, for as
 * long as the operating system keeps trying.
 */
export const CONNECT_TIMEOUT_SECONDS = 10;

function connectTimeoutMs(url: URL, field: string): number {
  const given = url.searchParams.get('connect_timeout');
  if (given === null) return CONNECT_TIMEOUT_SECONDS * 1000;
  if (!/^\d{1,6}$/.test(given))
    throw new InvalidInputError('PostgreSQL', [
      { path: field, message: 'connect_timeout must be a whole number of seconds' },
    ]);
  return Number(given) * 1000;
}

/** A connection for a URL (a pool of our own, ended by `release`) or for the host's pool. */
export function connect(target: string | pg.Pool, field = 'url'): Connection {
  if (typeof target !== 'string') return { pool: target, server: serverOf(target), owned: false };
  const url = parseUrl(target, field);
  const pool = new pg.Pool({ connectionString: target, max: 4, connectionTimeoutMillis: connectTimeoutMs(url, field) });
  // An idle client's broken connection must not crash the process: the next query reports it.
  pool.on('error', () => {});
  return { pool, server: redactUrl(url), owned: true };
}

export async function release(connection: Connection): Promise<void> {
  if (connection.owned) await connection.pool.end();
}

/** Errors of the connection itself, as opposed to a statement's (which carry a SQLSTATE). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'ECONNRESET', 'EHOSTUNREACH']);
/** SQLSTATE classes 08 (connection exception) and 57P (the server shutting down), 53300 (too many connections), 28 (refused login). */
const REFUSED_STATES = /^(08|57P|53300|28)/;

/** A connection failure as a typed error naming the server; any other error as it was. */
export function unavailable(error: unknown, server: string): unknown {
  // Already typed (a refusal of our own, a schema too old): its code is no SQLSTATE.
  if (error instanceof ConnectorError) return error;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // Node's AggregateError of a name with several addresses has an empty message and the code.
  const text = typeof message === 'string' && message !== '' ? message : String(code ?? error);
  if (typeof code === 'string' && (UNREACHABLE.has(code) || REFUSED_STATES.test(code)))
    return new DatabaseUnavailableError(server, text, error);
  if (/Connection terminated|timeout exceeded when trying to connect/.test(text))
    return new DatabaseUnavailableError(server, text, error);
  return error;
}

/** Statements and transactions on a pool, every connection failure typed. */
export interface Database {
  query<Row extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<Row>>;
  /** Runs `work` between BEGIN and COMMIT on one client; ROLLBACK when it throws. */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>;
}

export function database(pool: pg.Pool): Database {
  const server = serverOf(pool);
  return {
    async query<Row extends pg.QueryResultRow>(text: string, values?: unknown[]) {
      try {
        return await pool.query<Row>(text, values);
      } catch (error) {
        throw unavailable(error, server);
      }
    },
    async transaction(work) {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw unavailable(error, server);
      }
      try {
        await client.query('BEGIN');
        const result = await work(client);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw unavailable(error, server);
      } finally {
        client.release();
      }
    },
  };
}
