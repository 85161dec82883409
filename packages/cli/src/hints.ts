import {
  AddressRefusedError,
  ApprovalRequiredError,
  AuthenticationError,
  ConnectionConfigError,
  InvalidInputError,
  NetworkError,
  QuotaExhaustedError,
  TimeoutError,
  UnknownActionError,
} from '@plugboard/sdk';

/** What to do next after a failure, for a person at a terminal; undefined when the message says it all. */
export function hintFor(error: unknown): string | undefined {
  if (error instanceof ApprovalRequiredError) {
    return `someone other than you approves digest ${error.digest}; then run the same command with --approval '{"digest":"${error.digest}","requestedBy":"YOU","decidedBy":"THEM","decision":"approved","expiresAt":null}'`;
  }
  if (error instanceof ConnectionConfigError && /PLUGBOARD_CREDENTIAL|credential/.test(error.message)) return 'export PLUGBOARD_CREDENTIAL=... (the token or key of the connection), then run again';
  if (error instanceof AuthenticationError) return 'the provider refused the credential: check PLUGBOARD_CREDENTIAL';
  if (error instanceof QuotaExhaustedError) return 'top up the account with the provider, or wait for the quota to renew';
  if (error instanceof AddressRefusedError) return 'a local provider or stand-in? PLUGBOARD_ALLOW_NETWORK=127.0.0.0/8 lets loopback through';
  if (error instanceof NetworkError || error instanceof TimeoutError) return 'check --base-url and that the provider is reachable from here';
  if (error instanceof UnknownActionError) return 'plugboard catalogue --out DIR lists every action with its inputs';
  if (error instanceof InvalidInputError) return 'see the command\'s --help; the catalogue lists each action\'s input schema';
  return undefined;
}
