import type { ClientSettings } from '../settings.js';
import type { Send } from './stage.js';

/**
 * The run's credential, on every hop to the base URL's origin and on no other: a redirect to
 * another origin goes without it. The header is added to a copy of the call, so no stage above
 * ever sees it. Today a header resolved once per run; state a credential keeps per connection
 * (a token to refresh) belongs here.
 */
export function credential({ auth, baseUrl }: ClientSettings, next: Send): Send {
  if (!auth) return next;
  const [name, value] = auth;
  let origin: string | undefined;
  return (call) => {
    // A first hop's URL is built from the base URL: only a redirect's needs its origin compared.
    if (!call.redirected || call.url.origin === (origin ??= new URL(baseUrl).origin))
      return next({ ...call, headers: { ...call.headers, [name]: value } });
    if (!(name in call.headers)) return next(call);
    const { [name]: _dropped, ...headers } = call.headers;
    return next({ ...call, headers });
  };
}
