import { randomBytes } from 'node:crypto';
import { InvalidInputError } from '@plugboard/sdk';
import { describe, expect, test } from 'vitest';
import { CredentialUnreadableError, postgresCredentialStore, StoreValueTooLargeError } from '../src/index.js';
import { describeCredentialContract } from './contract/credentials.js';
import { migratedDatabase } from './support/migrated.js';

const db = migratedDatabase();
const key = randomBytes(32);

// Another view of the state is another pool on the same database: another machine with the same key.
describeCredentialContract('postgresCredentialStore', async () => {
  await db.empty();
  return {
    store: postgresCredentialStore(db.pools[0], { key }),
    reopen: () => postgresCredentialStore(db.pools[1], { key }),
  };
});

const tokens = { accessToken: 'at-8f2c-very-secret', refreshToken: 'rt-71aa-very-secret', scope: 'read' };

describe('postgresCredentialStore: sealed at rest', () => {
  test('the row holds no token in plaintext, and each write has a fresh IV', async () => {
    await db.empty();
    const store = postgresCredentialStore(db.pools[0], { key });
    await store.compareAndSet('conn_1', undefined, tokens);
    await store.compareAndSet('conn_2', undefined, tokens);
    const { rows } = await db.pools[0].query(
      'SELECT connection_id, version, sealed, row_to_json(c)::text AS raw FROM plugboard_credentials c ORDER BY connection_id',
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      for (const secret of [tokens.accessToken, tokens.refreshToken, 'very-secret']) {
        expect(row.raw).not.toContain(secret);
        expect((row.sealed as Buffer).includes(secret)).toBe(false);
        expect(row.raw).not.toContain(Buffer.from(secret).toString('hex'));
      }
    }
    // Same set, different connections: different IVs, different bytes.
    expect((rows[0].sealed as Buffer).equals(rows[1].sealed as Buffer)).toBe(false);
  });

  test('a wrong key reads as a typed error, with neither key nor token in it', async () => {
    await db.empty();
    await postgresCredentialStore(db.pools[0], { key }).compareAndSet('conn_1', undefined, tokens);
    const other = randomBytes(32);
    const failure = await postgresCredentialStore(db.pools[1], { key: other })
      .read('conn_1')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CredentialUnreadableError);
    expect(failure).toMatchObject({ code: 'credential_unreadable', retryable: false });
    const text = `${(failure as Error).message} ${JSON.stringify(failure)} ${String((failure as Error).cause)}`;
    for (const secret of [
      tokens.accessToken,
      tokens.refreshToken,
      key.toString('hex'),
      key.toString('base64'),
      other.toString('hex'),
    ])
      expect(text).not.toContain(secret);
  });

  test('a sealed set copied to another connection, or altered, does not open', async () => {
    await db.empty();
    const store = postgresCredentialStore(db.pools[0], { key });
    await store.compareAndSet('conn_1', undefined, tokens);
    await db.pools[0].query(
      `INSERT INTO plugboard_credentials (connection_id, version, sealed) SELECT 'conn_2', 1, sealed FROM plugboard_credentials WHERE connection_id = 'conn_1'`,
    );
    await expect(store.read('conn_2')).rejects.toBeInstanceOf(CredentialUnreadableError);
    await db.pools[0].query(
      `UPDATE plugboard_credentials SET sealed = set_byte(sealed, 40, get_byte(sealed, 40) # 1) WHERE connection_id = 'conn_1'`,
    );
    await expect(store.read('conn_1')).rejects.toBeInstanceOf(CredentialUnreadableError);
  });

  test('a key that is not 32 bytes is refused naming the field, before any statement', () => {
    for (const bad of [randomBytes(16), 'a'.repeat(32), undefined])
      expect(() => postgresCredentialStore(db.pools[0], { key: bad as Uint8Array })).toThrow(InvalidInputError);
    expect(() => postgresCredentialStore(db.pools[0], { key: randomBytes(31) })).toThrow(
      /key: must be 32 bytes \(AES-256\).*got 31 bytes/,
    );
  });

  test('a token set over the limit is refused, typed, and nothing is written', async () => {
    await db.empty();
    const store = postgresCredentialStore(db.pools[0], { key });
    const refused = store.compareAndSet('conn_1', undefined, { accessToken: 'x'.repeat(70_000) });
    await expect(refused).rejects.toBeInstanceOf(StoreValueTooLargeError);
    await expect(refused).rejects.toMatchObject({ field: 'tokens' });
    expect(await store.read('conn_1')).toBeUndefined();
  });
});
