import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConnectionConfigError, type ConnectionInput, type OAuth2Credential } from '@plugboard/sdk';
import type { CredentialOptions, CredentialStore } from '@plugboard/sdk/host';
import type { CliIo } from './io.js';
import { connectorCredentials, type KeptConnection, readKept } from './kept-connections.js';
import { defaultStateFolder } from './state.js';

/**
 * A connection someone signed in to with `plugboard auth login`, as `run`, `record`, `options`
 * and `check` use it: its token set comes from the state folder's credential store, and the
 * transport's token lifecycle refreshes it there (one process at a time, through a lock file).
 */
export interface SignedIn {
  kept: KeptConnection;
  state: string;
  store: CredentialStore;
}

/** The kept sign-in of a connector's connection in `--state DIR` or the default state folder; undefined when none. */
export async function signedIn(
  io: CliIo,
  givenState: string | undefined,
  connector: string,
  connection: string,
): Promise<SignedIn | undefined> {
  const state = givenState === undefined ? defaultStateFolder(io)?.dir : resolve(io.cwd, givenState);
  if (state === undefined) return undefined;
  const kept = await readKept(state, connector, connection);
  if (!kept) return undefined;
  return { kept, state, store: await connectorCredentials(state, connector) };
}

/**
 * The connection signed in with `auth login` that a command running an action uses (`run`,
 * `record`, `options`), when `--connection` settings pick no other scheme; its state folder is
 * `--state DIR` or the default one.
 */
export async function actionSignedIn(
  io: CliIo,
  args: { values: Record<string, string | undefined>; target: { key: string }; connection: ConnectionInput },
  connectionId: string,
): Promise<SignedIn | undefined> {
  const signed = await signedIn(io, args.values.state, args.target.key, connectionId);
  const picked = args.connection.settings?.authScheme;
  return signed && (picked === undefined || String(picked).toLowerCase() === signed.kept.scheme) ? signed : undefined;
}

/**
 * The connection as given with the parts a sign-in keeps: its settings naming the scheme signed
 * in with, and the stand-in authorization server it signed in at (`auth login --auth-base-url`),
 * where every refresh goes. The connection as given when there is no sign-in.
 */
export function signedInConnection(connection: ConnectionInput, signed: SignedIn | undefined): ConnectionInput {
  if (!signed) return connection;
  const { kept } = signed;
  return {
    ...connection,
    ...(kept.authBaseUrl ? { authBaseUrl: kept.authBaseUrl } : {}),
    settings: { ...connection.settings, authScheme: kept.scheme },
  };
}

/** What the transport's token lifecycle needs: the store to refresh into, and where processes take turns. */
export async function signedInCredentials({ state, store }: SignedIn): Promise<CredentialOptions> {
  const lockFolder = join(state, 'credentials', 'locks');
  await mkdir(lockFolder, { recursive: true, mode: 0o700 });
  return { store, lockFolder };
}

/**
 * The credential of a signed-in connection: the client the token set was issued to (its id kept
 * at sign-in; a confidential client's secret from `PLUGBOARD_CLIENT_SECRET` only) and the token
 * set the store holds now.
 */
export function signedInCredential(io: CliIo, { kept, store }: SignedIn): () => Promise<OAuth2Credential> {
  return async () => {
    const stored = await store.read(kept.connection);
    if (!stored)
      throw new ConnectionConfigError(
        `connection '${kept.connection}' of ${kept.connector} holds no token set; sign in with plugboard auth login ${kept.connector} --connection-id ${kept.connection}`,
      );
    const secret = io.env.PLUGBOARD_CLIENT_SECRET;
    return {
      clientId: kept.clientId,
      ...(secret ? { clientSecret: secret } : {}),
      tokens: stored.tokens,
    };
  };
}
