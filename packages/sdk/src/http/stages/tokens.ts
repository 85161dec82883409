import { AuthenticationError } from '../../errors.js';
import type { Redactor } from '../../secrets.js';
import type { TokenSet, TokenSource } from '../../tokens.js';
import { NEVER } from '../settings.js';
import { requestIdOf } from './redaction.js';
import type { Call, Send } from './stage.js';

/** What the tokens stage uses: the connection's token source (the OAuth2 lifecycle, or a host's), and the redactor every token goes to. */
export interface TokensOptions {
  source: TokenSource;
  redactor: Redactor;
  /** The connector's key, for the error of a refused refreshed token. */
  connector: string;
}

/**
 * The access token of each attempt, from the token source, for the credential stage to send:
 * asked before the budget's turn, so a request waiting for a refresh holds no place in it. A
 * 401 is answered once: the source refreshes, the request goes again with the new token (a new
 * turn of the budget); a second 401 is `credentials_changed`. Every token the source gives is
 * handed to the redactor first (`addRecent`). A call's own signal (the run's cancel, above the
 * timeout stage) ends its wait for a token.
 */
export function tokens({ source, redactor, connector }: TokensOptions, next: Send): Send {
  // A refresh is the connection's, shared by other runs: the run's cancel ends its own wait only.
  const waited = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
    signal === NEVER
      ? work
      : new Promise<T>((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          const cancel = () => reject(signal.reason);
          signal.addEventListener('abort', cancel, { once: true });
          work.then(resolve, reject).finally(() => signal.removeEventListener('abort', cancel));
        });
  const send = (call: Call, tokens: TokenSet) => {
    // Renewed tokens are hidden from then on; the latest few are kept, so a long run's redactor stays small.
    redactor.addRecent(tokens.accessToken);
    redactor.addRecent(tokens.refreshToken);
    return next({ ...call, accessToken: tokens.accessToken });
  };
  return async (call) => {
    const used = await waited(source.current(), call.signal);
    const answer = await send(call, used);
    if (answer.status !== 401) return answer;
    const again = await send(call, await waited(source.refreshAfter401(used), call.signal));
    if (again.status !== 401) return again;
    throw new AuthenticationError(
      `${call.operation}: connector '${connector}': the provider refused a newly refreshed access token (401): the credential was changed or revoked; sign in again`,
      { code: 'credentials_changed', status: 401, requestId: requestIdOf(redactor, again.headers) },
    );
  };
}
