import { ConnectorError, excerpt } from '@plugboard/sdk';

/**
 * The typed failures of the PostgreSQL state: each a `ConnectorError` with a stable `code`, and
 * never a secret in its message (a URL's password is masked, token sets are never quoted).
 */

/** The database's schema is not the one this code was built for: older (run the migrations) or newer (run newer code). */
export class SchemaVersionError extends ConnectorError {
  /** `schema_out_of_date` when the database is behind the code, `schema_too_new` when it is ahead. */
  static readonly codes = { old: 'schema_out_of_date', new: 'schema_too_new' } as const;

  /** The newest migration applied to the database; 0 when none was. */
  readonly applied: number;
  /** The newest migration this code knows. */
  readonly known: number;

  constructor(applied: number, known: number) {
    const behind = applied < known;
    super(
      behind
        ? `the PostgreSQL schema is at migration ${applied}, older than migration ${known} this code needs; run plugboard db migrate --postgres URL (or migrate(url)) first`
        : `the PostgreSQL schema is at migration ${applied}, newer than migration ${known}, the newest this code knows; run the newer Plugboard that migrated it, never an older one against it`,
      {
        code: behind ? SchemaVersionError.codes.old : SchemaVersionError.codes.new,
        retryable: false,
        platformStatus: 500,
      },
    );
    this.applied = applied;
    this.known = known;
  }
}

/** PostgreSQL could not be reached, or dropped the connection: which server, where, and why. Worth trying again later. */
export class DatabaseUnavailableError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'database_unavailable';

  constructor(server: string, reason: string, cause?: unknown) {
    super(`PostgreSQL at ${server} cannot be reached: ${reason}`, {
      code: DatabaseUnavailableError.code,
      retryable: true,
      platformStatus: 503,
      cause,
    });
  }
}

/** A value, a key or a token set is larger than the store keeps: nothing was written. */
export class StoreValueTooLargeError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'store_value_too_large';

  /** What was too large: `checkpoint`, `record`, `key`, `tokens`. */
  readonly field: string;
  /** Its size in bytes (UTF-8; a value as JSON). */
  readonly size: number;
  /** The most bytes kept. */
  readonly limit: number;

  constructor(subject: string, field: string, size: number, limit: number) {
    super(`${subject}: ${field} is ${size} bytes; at most ${limit} are kept; nothing was written`, {
      code: StoreValueTooLargeError.code,
      retryable: false,
      platformStatus: 413,
    });
    this.field = field;
    this.size = size;
    this.limit = limit;
  }
}

/**
 * A stored token set cannot be decrypted: the key differs from the one it was written with, or
 * the row was altered. Nothing of the stored bytes is quoted.
 */
export class CredentialUnreadableError extends ConnectorError {
  /** The stable code of this failure. */
  static readonly code = 'credential_unreadable';

  constructor(connectionId: string) {
    super(
      `the stored token set of connection ${JSON.stringify(excerpt(connectionId))} cannot be decrypted with this key: it was written with another key, or altered; give the key it was written with, or sign in again`,
      { code: CredentialUnreadableError.code, retryable: false, platformStatus: 500 },
    );
  }
}
