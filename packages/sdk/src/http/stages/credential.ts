import { without } from '../../auth/schemes/hops.js';
import type { HopRun } from '../../auth/schemes/scheme-type.js';
import type { Redactor } from '../../secrets.js';
import type { AppliedAuth } from '../auth.js';
import type { Call, Send } from './stage.js';

/** What the credential stage uses: what the connection's scheme adds, and to which origin. */
export interface CredentialStageOptions {
  /** Resolved once per connection and credential (http/auth.ts); none: the calls go as they are. */
  auth: AppliedAuth | undefined;
  baseUrl: string;
  redactor: Redactor;
  /** The connector's key, for a signer's errors. */
  connector: string;
}

/**
 * The run's credential, on every hop to the base URL's origin and on no other: a redirect to
 * another origin goes without it (a query parameter of the scheme's name is taken off its URL
 * too). What the scheme adds goes on a copy of the call, so no stage above ever sees it: the
 * scheme's `onto`, resolved once per connection and credential (http/auth.ts), puts a header or a query parameter on
 * each hop, or calls its signer; an OAuth2 access token comes on the call from the tokens stage.
 */
export function credential({ auth, baseUrl, redactor, connector }: CredentialStageOptions, next: Send): Send {
  if (!auth) return next;
  let origin: string | undefined;
  // A first hop's URL is built from the base URL: only a redirect's needs its origin compared.
  const toProvider = (call: Call) => !call.redirected || call.url.origin === (origin ??= new URL(baseUrl).origin);
  const onto: (call: Call, toProvider: boolean, run: HopRun) => Call | Promise<Call> =
    auth.type === 'token' ? withAccessToken : auth.onto;
  const run: HopRun = { redactor, connector };
  return (call) => {
    const hop = onto(call, toProvider(call), run);
    return hop instanceof Promise ? hop.then(next) : next(hop);
  };
}

/** The access token the tokens stage above put on the call, to the provider only. */
function withAccessToken(call: Call, toProvider: boolean): Call {
  if (!toProvider || call.accessToken === undefined) return without(call, 'authorization');
  return { ...call, headers: { ...call.headers, authorization: `Bearer ${call.accessToken}` } };
}
