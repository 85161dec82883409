import { createHash } from 'node:crypto';
import { CredentialsExpiredError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import type { Logger } from '../log.js';
import type { Redactor } from '../secrets.js';
import type { CredentialStore, StoredTokens, StoredTokenSet } from '../tokens.js';

/**
 * A refresh token the token endpoint refused (`invalid_grant`) is never sent again: the token
 * lifecycle remembers its SHA-256 digest, and marks the set in the credential store with it
 * (`refreshRefused`) so that other processes do not send it either. Neither keeps the token
 * itself. A set written later (a sign-in, an operator, another process's refresh) has another
 * refresh token and no mark, and is refreshed as usual.
 */

export function refreshDigest(refreshToken: string): string {
  return createHash('sha256').update(refreshToken).digest('hex');
}

/** Whether the refresh token of `tokens` was refused: as this process remembers (`remembered`), or as the store's mark says. */
export function isRefused(tokens: StoredTokenSet | undefined, remembered: string | undefined): boolean {
  const refreshToken = tokens?.refreshToken;
  // Asked before every request: hashed only once some refusal is known.
  if (refreshToken === undefined || (remembered === undefined && tokens!.refreshRefused === undefined)) return false;
  const digest = refreshDigest(refreshToken);
  return digest === remembered || digest === tokens!.refreshRefused;
}

/** The failure of a run on a set whose refresh token was refused before. */
export function grantRefused(subject: string): CredentialsExpiredError {
  return new CredentialsExpiredError(
    `${subject}: the token endpoint refused this token set's refresh token before (invalid_grant): the grant has expired or was revoked; sign in again; nothing was sent`,
  );
}

/**
 * Marks `entry` (as read under the refresh lease) refused as `digest`, unless it holds another
 * refresh token or changed since. Returns the entry as the store holds it then, or undefined when
 * the mark was not written: a store that failed leaves the refusal to this process's memory.
 */
export async function markRefused(
  store: CredentialStore,
  connectionId: string,
  entry: StoredTokens,
  digest: string,
  { log, redactor }: { log: Logger; redactor: Redactor },
): Promise<StoredTokens | undefined> {
  const { refreshToken, refreshRefused } = entry.tokens;
  if (refreshRefused === digest) return entry;
  if (refreshToken === undefined || refreshDigest(refreshToken) !== digest) return undefined;
  const marked = { ...entry.tokens, refreshRefused: digest };
  try {
    return (await store.compareAndSet(connectionId, entry, marked))
      ? { version: entry.version + 1, tokens: marked }
      : undefined;
  } catch (error) {
    log.warn(
      'the credential store did not take the mark of a refused refresh token; other processes may send it once',
      {
        error: excerpt(redactor.redactString(error instanceof Error ? error.message : String(error))),
      },
    );
    return undefined;
  }
}
