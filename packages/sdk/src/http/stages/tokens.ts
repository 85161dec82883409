import { AuthenticationError } from '../../errors.js';
import type { TokenSet } from '../../tokens.js';
import { type ClientSettings, NEVER } from '../settings.js';
import { requestIdOf } from './redaction.js';
import type { Call, Send } from './stage.js';

/**
 * The access token of each attempt, from the run's token source (the OAuth2 lifecycle), for
 * the credential stage to send: asked before the budget's turn, so a request waiting for a
 * refresh holds no place in it. A 401 is answered once: the source refreshes, the request goes
 * again with the new token (a new turn of the budget); a second 401 is `credentials_changed`.
 * Every token the source gives is handed to the run's redactor first (`addRecent`).
 */
export function tokens(settings: ClientSettings, next: Send): Send {
  const { auth, redactor, connector, signal } = settings;
  if (auth?.type !== 'token') return next;
  const { source } = auth;
  // A refresh is the connection's, shared by other runs: the run's cancel ends its own wait only.
  const waited = <T>(work: Promise<T>): Promise<T> =>
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
    const used = await waited(source.current());
    const answer = await send(call, used);
    if (answer.status !== 401) return answer;
    const again = await send(call, await waited(source.refreshAfter401(used)));
    if (again.status !== 401) return again;
    throw new AuthenticationError(
      `${call.operation}: connector '${connector.key}': the provider refused a newly refreshed access token (401): the credential was changed or revoked; sign in again`,
      { code: 'credentials_changed', status: 401, requestId: requestIdOf(redactor, again.headers) },
    );
  };
}
