import { ConnectorError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import type { SignedParts } from '../../definition/auth.js';
import type { Redactor } from '../../secrets.js';
import { isHeaderName } from '../../definition/auth.js';
import { NOT_IN_HEADER } from '../headers.js';
import type { ClientSettings } from '../settings.js';
import type { Call, Send } from './stage.js';

/**
 * The run's credential, on every hop to the base URL's origin and on no other: a redirect to
 * another origin goes without it (a query parameter of the scheme's name is taken off its URL
 * too). What the scheme adds goes on a copy of the call, so no stage above ever sees it. A
 * header or query parameter is resolved once per run (http/auth.ts); a signer is called for each
 * hop; an OAuth2 access token comes on the call from the tokens stage.
 */
export function credential({ auth, baseUrl, redactor, connector }: ClientSettings, next: Send): Send {
  if (!auth) return next;
  let origin: string | undefined;
  // A first hop's URL is built from the base URL: only a redirect's needs its origin compared.
  const toProvider = (call: Call) => !call.redirected || call.url.origin === (origin ??= new URL(baseUrl).origin);
  switch (auth.type) {
    case 'header': {
      const { name, value } = auth;
      return (call) =>
        toProvider(call) ? next({ ...call, headers: { ...call.headers, [name]: value } }) : next(without(call, name));
    }
    case 'query': {
      const { name, value } = auth;
      return (call) => {
        if (!toProvider(call) && !call.url.searchParams.has(name)) return next(call);
        const url = new URL(call.url);
        if (toProvider(call)) url.searchParams.set(name, value);
        else url.searchParams.delete(name);
        return next({ ...call, url });
      };
    }
    case 'token':
      // The tokens stage above put this attempt's access token on the call.
      return (call) => {
        if (!toProvider(call) || call.accessToken === undefined) return next(without(call, 'authorization'));
        return next({ ...call, headers: { ...call.headers, authorization: `Bearer ${call.accessToken}` } });
      };
    case 'sign': {
      const { sign, key } = auth;
      return async (call) => {
        if (!toProvider(call)) return next(call);
        let parts: SignedParts;
        try {
          parts = await sign(
            { method: call.method, url: call.url.href, headers: { ...call.headers }, body: call.body },
            key,
          );
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          throw new ConnectorError(
            `${call.operation}: connector '${connector.key}': the auth scheme's signer failed: ${excerpt(redactor.redactString(message))}; nothing was sent`,
            { code: 'signing_failed', retryable: false, platformStatus: 500 },
          );
        }
        return next(signed(call, parts, redactor, connector.key));
      };
    }
  }
}

function without(call: Call, name: string): Call {
  if (!(name in call.headers)) return call;
  const { [name]: _dropped, ...headers } = call.headers;
  return { ...call, headers };
}

/** The call with what the signer returned: each value checked, and hidden from every log line, error and event. */
function signed(call: Call, parts: SignedParts, redactor: Redactor, connector: string): Call {
  const refuse = (problem: string): never => {
    throw new ConnectorError(
      `${call.operation}: connector '${connector}': the auth scheme's signer returned ${problem}; nothing was sent`,
      { code: 'signing_failed', retryable: false, platformStatus: 500 },
    );
  };
  let { headers, url } = call;
  if (parts.headers) {
    headers = { ...headers };
    for (const name in parts.headers) {
      const value = parts.headers[name];
      if (!isHeaderName(name)) refuse(`a header name that is not valid`);
      if (typeof value !== 'string' || NOT_IN_HEADER.test(value))
        refuse(`for ${name} a value an HTTP header cannot carry`);
      redactor.addRecent(value);
      headers[name.toLowerCase()] = value as string;
    }
  }
  if (parts.query) {
    url = new URL(url);
    for (const name in parts.query) {
      const value = parts.query[name];
      if (typeof value !== 'string') refuse(`for the query parameter ${name} a value that is not a string`);
      redactor.addRecent(value);
      url.searchParams.set(name, value as string);
    }
  }
  return { ...call, headers, url };
}
