import type { CredentialStore, StoredTokens } from '@plugboard/sdk/host';
import type pg from 'pg';
import { database } from './database.js';
import { checkedKey, jsonText, LIMITS } from './limits.js';
import { seal, sealingKey, unseal } from './sealing.js';

/**
 * Each connection's OAuth2 token set in PostgreSQL, sealed with AES-256-GCM under the host's key
 * (`sealing.ts`): no token is ever in the database in plaintext, and a wrong key reads as
 * `CredentialUnreadableError`. Writes are compare-and-set by version, each one statement (a
 * transaction of its own) that changes the row only when its version is still the one read.
 */

const SUBJECT = 'PostgreSQL credential store';

/** How `postgresCredentialStore` seals token sets. */
export interface PostgresCredentialStoreOptions {
  /** 32 bytes (AES-256) the host keeps outside the database, e.g. base64 in an environment variable. */
  key: Uint8Array;
}

/**
 * The token sets of every connection in PostgreSQL (migrated: `migrate`), sealed under
 * `options.key`; refuses a key that is not 32 bytes with an `InvalidInputError` naming `key`.
 */
export function postgresCredentialStore(pool: pg.Pool, options: PostgresCredentialStoreOptions): CredentialStore {
  const key = sealingKey(options?.key, SUBJECT);
  const db = database(pool);
  const checked = (connectionId: string) => checkedKey(connectionId, SUBJECT, 'connectionId');
  return {
    async read(connectionId) {
      const { rows } = await db.query<{ version: number; sealed: Buffer }>(
        'SELECT version, sealed FROM plugboard_credentials WHERE connection_id = $1',
        [checked(connectionId)],
      );
      const row = rows[0];
      return row
        ? ({ version: row.version, tokens: unseal(key, connectionId, row.sealed) } as StoredTokens)
        : undefined;
    },
    async compareAndSet(connectionId, expected, next) {
      const sealed = seal(key, checked(connectionId), jsonText(next, SUBJECT, 'tokens', LIMITS.tokenBytes));
      // A first write inserts (of two, one wins the key); a later one updates the version read, or nothing.
      const { rowCount } =
        expected === undefined
          ? await db.query(
              `INSERT INTO plugboard_credentials (connection_id, version, sealed) VALUES ($1, 1, $2)
               ON CONFLICT (connection_id) DO NOTHING`,
              [connectionId, sealed],
            )
          : await db.query(
              `UPDATE plugboard_credentials SET version = version + 1, sealed = $3, saved_at = now()
               WHERE connection_id = $1 AND version = $2`,
              [connectionId, expected.version, sealed],
            );
      return rowCount === 1;
    },
  };
}
