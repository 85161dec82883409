import type { CredentialStore, StoredTokenSet } from '@plugboard/sdk/host';
import { describe, expect, test } from 'vitest';

/**
 * What every `CredentialStore` must do, whatever keeps it: run by each store's own test file
 * with a factory. `open()` gives an empty store; `reopen()` another view of the same state, as
 * another process would have.
 */
export interface CredentialSubject {
  store: CredentialStore;
  reopen(): CredentialStore;
}

const first: StoredTokenSet = {
  accessToken: 'at-1-secret',
  refreshToken: 'rt-1-secret',
  expiresAt: 1_767_225_600_000,
  scope: 'read write',
  tokenType: 'Bearer',
};
const second: StoredTokenSet = {
  accessToken: 'at-2-secret',
  refreshToken: 'rt-2-secret',
  refreshRefused: 'ab'.repeat(32),
};

export function describeCredentialContract(name: string, open: () => Promise<CredentialSubject>): void {
  describe(`${name}: credentials`, () => {
    test('a connection never written has no token set', async () => {
      const { store } = await open();
      expect(await store.read('conn_1')).toBeUndefined();
    });

    test('a first write stores the set whole at version 1, in another view too', async () => {
      const { store, reopen } = await open();
      expect(await store.compareAndSet('conn_1', undefined, first)).toBe(true);
      expect(await reopen().read('conn_1')).toEqual({ version: 1, tokens: first });
      expect(await store.read('conn_2')).toBeUndefined();
    });

    test('a write on the version read replaces the whole set and counts one more', async () => {
      const { store, reopen } = await open();
      await store.compareAndSet('conn_1', undefined, first);
      const read = await store.read('conn_1');
      expect(await reopen().compareAndSet('conn_1', read, second)).toBe(true);
      expect(await store.read('conn_1')).toEqual({ version: 2, tokens: second });
    });

    test('a write on a stale version, or a first write where a set is, changes nothing', async () => {
      const { store } = await open();
      await store.compareAndSet('conn_1', undefined, first);
      const stale = await store.read('conn_1');
      await store.compareAndSet('conn_1', stale, second);
      expect(await store.compareAndSet('conn_1', stale, first)).toBe(false);
      expect(await store.compareAndSet('conn_1', undefined, first)).toBe(false);
      expect(await store.compareAndSet('conn_2', stale, first)).toBe(false);
      expect(await store.read('conn_1')).toEqual({ version: 2, tokens: second });
      expect(await store.read('conn_2')).toBeUndefined();
    });

    test('of 20 writes on one version at once, exactly one wins', async () => {
      const { store, reopen } = await open();
      await store.compareAndSet('conn_1', undefined, first);
      const read = await store.read('conn_1');
      const views = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : reopen()));
      const won = await Promise.all(
        views.map((view, index) => view.compareAndSet('conn_1', read, { accessToken: `at-${index}` })),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.read('conn_1')).toEqual({ version: 2, tokens: { accessToken: `at-${won.indexOf(true)}` } });
    });

    test('of 20 first writes at once, exactly one wins', async () => {
      const { store, reopen } = await open();
      const views = Array.from({ length: 20 }, (_, index) => (index % 2 === 0 ? store : reopen()));
      const won = await Promise.all(
        views.map((view, index) => view.compareAndSet('conn_9', undefined, { accessToken: `at-${index}` })),
      );
      expect(won.filter(Boolean)).toHaveLength(1);
      expect(await store.read('conn_9')).toEqual({ version: 1, tokens: { accessToken: `at-${won.indexOf(true)}` } });
    });
  });
}
