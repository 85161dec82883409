import type { Transport } from '@plugboard/sdk';
import { createExecutor, createHostTransport, type Executor, memoryStore, type Stores } from '@plugboard/sdk/host';
import type { ActionArgs, IsolatedActionArgs } from './action-args.js';
import type { CliIo } from './io.js';
import { allowedNetwork } from './network.js';
import { actionSignedIn, signedInConnection, signedInCredential, signedInCredentials } from './signed-in.js';

/** The executor a command runs the connector of its arguments through, and the transport to close after. */
export interface ActionHost {
  executor: Executor;
  transport: Transport;
  /** Closes the transport, and ends the plugin's process of an isolated connector. */
  close(): Promise<void>;
}

/** The connection's sign-in, and the connection with what it keeps; a plugin's process is ended when it is refused. */
async function connectionOf(io: CliIo, args: ActionArgs | IsolatedActionArgs, connectionId: string) {
  try {
    const signed = await actionSignedIn(io, args, connectionId);
    return { signed, connection: signedInConnection(args.connection, signed) };
  } catch (error) {
    if ('plugin' in args) await args.plugin.close();
    throw error;
  }
}

/**
 * The executor of `run` and `options`: the connector of the arguments (a plugin folder's in a
 * process of its own, with its own transport under the same network policy and Redis), the
 * connection as given (its OAuth2 endpoints at a stand-in with `--auth-base-url`), its credential
 * from a signed-in connection or PLUGBOARD_CREDENTIAL.
 */
export async function actionExecutor(
  io: CliIo,
  args: ActionArgs | IsolatedActionArgs,
  connectionId: string,
  stores?: Stores,
): Promise<ActionHost> {
  // A command makes few requests: Node's own http modules start quicker than loading a pool
  // (an idle keep-alive socket there does not hold the process open).
  // PLUGBOARD_REDIS_URL shares the rate budgets with every other process on that Redis.
  const redis = io.env.PLUGBOARD_REDIS_URL;
  // PLUGBOARD_ALLOW_NETWORK lets address ranges through the network policy (a local simulator in production, say).
  // A plugin folder's connector runs in its own process, but a signed-in connection's token set
  // is refreshed here, into the store of the state folder it was found in (at its stand-in, when
  // it signed in at one): the plugin gets the access token only.
  const { signed, connection } = await connectionOf(io, args, connectionId);
  const transport = createHostTransport({
    via: 'http',
    ...(redis ? { redis } : {}),
    network: { allow: allowedNetwork(io.env) },
    ...(signed ? { credentials: await signedInCredentials(signed) } : {}),
  });
  const executor = createExecutor({
    ...('plugin' in args
      ? { plugins: [{ package: args.plugin.package, runner: args.plugin.runner }] }
      : { connectors: [args.connector] }),
    resolveConnection: (id) => ({ ...connection, id }),
    resolveCredential: signed ? signedInCredential(io, signed) : args.credential,
    stores: stores ?? memoryStore(),
    transport,
    log: args.log,
  });
  return {
    executor,
    transport,
    close: async () => {
      await transport.close();
      if ('plugin' in args) await args.plugin.close();
    },
  };
}
