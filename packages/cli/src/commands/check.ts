import type { Environment } from '@plugboard/sdk';
import { checkConnection, createHostTransport, type LiveCheck } from '@plugboard/sdk/host';
import { messagesLog } from '../action-args.js';
import { authBaseUrlOption } from '../auth-base-option.js';
import { connectionIdOption } from '../connection-name.js';
import { environmentCredential } from '../credential-variable.js';
import type { ExitCode } from '../exit-codes.js';
import { writeJsonLine } from '../io.js';
import { writeKept } from '../kept-connections.js';
import { allowedNetwork } from '../network.js';
import type { Invocation } from '../invocation.js';
import { signedIn, signedInConnection, signedInCredential, signedInCredentials } from '../signed-in.js';

/**
 * The exit code of a LiveCheck: 0 only when it passed; 1 when the provider could not be reached
 * or was down (a retry may pass); 4 when a person must act on what the
 * provider said (expired or changed credentials: sign in again; failed: its fixHint); 2 when
 * the connector has no check, so nothing was sent.
 */
export function checkExitCode(state: LiveCheck['state'], retryable = false): ExitCode {
  if (state === 'passed') return 0;
  if (state === 'not_checked') return 2;
  // The provider unreachable or down: the same check may pass a moment later, as a retried script expects.
  return state === 'failed' && retryable ? 1 : 4;
}

/**
 * `plugboard check <connector> [--connection-id NAME] --base-url URL`: the connector's connection
 * check through the same pipeline as a run, printed as the platform's LiveCheck (one JSON line).
 * A connection signed in with `auth login` uses its kept token set, refreshed as a run would;
 * any other uses PLUGBOARD_CREDENTIAL (its token requests at a stand-in with `--auth-base-url`).
 * The verdict is kept with the signed-in connection.
 */
export async function checkCommand(invocation: Invocation): Promise<ExitCode> {
  const { io, values, signal, messages } = invocation;
  const given = values as Record<string, string | undefined>;
  const connection = connectionIdOption(given, messages, true) ?? 'default';
  const { connector } = await invocation.findConnector({
    key: invocation.args[0],
    connector: given.connector,
    plugins: given.plugins,
  });
  const environment = (given.environment ?? 'sandbox') as Environment;
  const authBaseUrl = authBaseUrlOption(given['auth-base-url'], environment, connector);
  const signed = await signedIn(io, given.state, connector.key, connection);
  // Refused before a transport is made: a signed-in connection's endpoints are where it signed in.
  const checked = signedInConnection(
    {
      id: connection,
      ...(given['base-url'] ? { baseUrl: given['base-url'] } : {}),
      ...(authBaseUrl === undefined ? {} : { authBaseUrl }),
    },
    signed,
  );
  // As `run`: PLUGBOARD_REDIS_URL shares the budgets (and the refresh lease) with other processes.
  const redis = io.env.PLUGBOARD_REDIS_URL;
  const transport = createHostTransport({
    via: 'http',
    ...(redis ? { redis } : {}),
    network: { allow: allowedNetwork(io.env) },
    ...(signed ? { credentials: await signedInCredentials(signed) } : {}),
  });
  const fromVariable = environmentCredential(io, { connector });
  let live: LiveCheck;
  let retryable = false;
  try {
    live = await checkConnection(connector, {
      connection: checked,
      environment,
      credential: signed ? signedInCredential(io, signed) : () => fromVariable(connection),
      transport,
      log: messagesLog(messages),
      signal,
      onFailure: (error) => {
        retryable = error.retryable;
      },
    });
  } finally {
    await transport.close();
  }
  writeJsonLine(io.stdout, live);
  if (signed && live.checkedAt)
    await writeKept(signed.state, { ...signed.kept, lastCheck: { state: live.state, checkedAt: live.checkedAt } });
  return checkExitCode(live.state, retryable);
}
