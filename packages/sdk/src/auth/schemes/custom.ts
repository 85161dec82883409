import type { CustomScheme, SignedParts } from '../../definition/auth.js';
import { ConnectorError } from '../../errors.js';
import { excerpt } from '../../excerpt.js';
import { isHeaderName, NOT_IN_HEADER } from '../../http/headers.js';
import type { KeyChecked } from './credential-reader.js';
import { keyCredential } from './key.js';
import type { HopRun, SchemeHop, SchemeType } from './scheme-type.js';

/**
 * A scheme whose function signs every request to the provider's origin.
 * @example auth: customAuth({ id: 'hmac', sign: (request, secret) => ({ headers: { 'x-signature': hmac(secret, request.body ?? '') } }) })
 */
export function customAuth(options: { id: string; sign: CustomScheme['sign'] }): CustomScheme {
  return { type: 'custom', id: options.id, sign: options.sign };
}

/** A signer of the connector's own, called with the key and a copy of each request to the provider. */
export const custom: SchemeType<CustomScheme, KeyChecked> = {
  type: 'custom',
  ...keyCredential(true),
  problems: (scheme) => (typeof scheme.sign === 'function' ? [] : ['sign must be a function']),
  apply: ({ sign }, { key }) => ({
    type: 'request',
    onto: (hop, toProvider, run) => (toProvider ? signed(hop, sign, key, run) : hop),
  }),
  catalogue: () => ({}),
  describe: (published) => ['Requests signed by the connector (', { code: published.id }, ')'],
  renewHint: (provider) => `Replace the signing key with a current one from ${provider}.`,
  signsEachRequest: true,
};

function signingFailed(hop: SchemeHop, run: HopRun, problem: string): ConnectorError {
  return new ConnectorError(
    `${hop.operation}: connector '${run.connector}': the auth scheme's ${problem}; nothing was sent`,
    { code: 'signing_failed', retryable: false, platformStatus: 500 },
  );
}

/** The hop with what the signer returned: each value checked, and hidden from every log line, error and event. */
async function signed<H extends SchemeHop>(hop: H, sign: CustomScheme['sign'], key: string, run: HopRun): Promise<H> {
  let parts: SignedParts;
  try {
    parts = await sign({ method: hop.method, url: hop.url.href, headers: { ...hop.headers }, body: hop.body }, key);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw signingFailed(hop, run, `signer failed: ${excerpt(run.redactor.redactString(message))}`);
  }
  const refuse = (problem: string): never => {
    throw signingFailed(hop, run, `signer returned ${problem}`);
  };
  let { headers, url } = hop;
  if (parts.headers) {
    headers = { ...headers };
    for (const name in parts.headers) {
      const value = parts.headers[name];
      if (!isHeaderName(name)) refuse(`a header name that is not valid`);
      if (typeof value !== 'string' || NOT_IN_HEADER.test(value))
        refuse(`for ${name} a value an HTTP header cannot carry`);
      run.redactor.addRecent(value);
      headers[name.toLowerCase()] = value as string;
    }
  }
  if (parts.query) {
    url = new URL(url);
    for (const name in parts.query) {
      const value = parts.query[name];
      if (typeof value !== 'string') refuse(`for the query parameter ${name} a value that is not a string`);
      run.redactor.addRecent(value);
      url.searchParams.set(name, value as string);
    }
  }
  return { ...hop, headers, url };
}
