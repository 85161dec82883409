import type { CredentialStore } from '@plugboard/sdk/host';

/**
 * Token refreshes, as the credential store sees them: a token set replaced by one with another
 * access token (a refresh, or a new client-credentials grant). The first set of a connection and
 * a set marked as refused keep or bring no new access token: not counted. Nothing of a set is kept.
 */
export function countingRefreshes(store: CredentialStore, refreshed: () => void): CredentialStore {
  return {
    read: (connectionId) => store.read(connectionId),
    async compareAndSet(connectionId, expected, next) {
      const written = await store.compareAndSet(connectionId, expected, next);
      if (written && expected !== undefined && expected.tokens.accessToken !== next.accessToken) refreshed();
      return written;
    },
  };
}
