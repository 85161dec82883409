import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConnectionConfigError, type ConnectionInput, excerpt, type OAuth2Credential } from '@plugboard/sdk';
import type { CredentialOptions, CredentialStore } from '@plugboard/sdk/host';
import { sameAuthBase } from './auth-base-option.js';
import type { CliIo } from './io.js';
import { byConnection, connectorCredentials, type KeptConnection, listKept, readKept } from './kept-connections.js';
import { defaultStateFolder } from './state.js';
import { UsageError } from './usage.js';

/**
 * A connection someone signed in to with `plugboard auth login`, as `run`, `record`, `options`
 * and `check` use it: its token set comes from the credential store of the state folder it was
 * found in, and the transport's token lifecycle refreshes it there (one process at a time,
 * through a lock file), so a rotated refresh token is kept where the next command finds it.
 */
export interface SignedIn {
  kept: KeptConnection;
  /** The state folder the sign-in was found in: its token set and lock folder are there. */
  state: string;
  store: CredentialStore;
}

/**
 * Where a sign-in is looked up, in order: `--state DIR` when given, then the default state
 * folder, where `auth login` without `--state` keeps it. A command's own `--state` (a
 * recording's checkpoints, say) thus still finds the sign-in of a person who signed in once.
 */
export function signInFolders(io: CliIo, givenState: string | undefined): string[] {
  const folders = givenState === undefined ? [] : [resolve(io.cwd, givenState)];
  const fallback = defaultStateFolder(io)?.dir;
  if (fallback !== undefined && !folders.includes(fallback)) folders.push(fallback);
  return folders;
}

/** The kept sign-in of a connector's connection in the first of `signInFolders` holding one; undefined when none does. */
export async function signedIn(
  io: CliIo,
  givenState: string | undefined,
  connector: string,
  connection: string,
): Promise<SignedIn | undefined> {
  for (const state of signInFolders(io, givenState)) {
    const kept = await readKept(state, connector, connection);
    if (kept) return { kept, state, store: await connectorCredentials(state, connector) };
  }
  return undefined;
}

/** Every sign-in `signedIn` finds from `folders`: one per connector and connection, from the first folder holding it. */
export async function listSignedIn(folders: readonly string[]): Promise<{ kept: KeptConnection; state: string }[]> {
  const found = new Map<string, { kept: KeptConnection; state: string }>();
  for (const state of folders)
    for (const kept of await listKept(state)) {
      const name = JSON.stringify([kept.connector, kept.connection]);
      if (!found.has(name)) found.set(name, { kept, state });
    }
  return [...found.values()].sort((a, b) => byConnection(a.kept, b.kept));
}

/**
 * The connection signed in with `auth login` that a command running an action uses (`run`,
 * `record`, `options`), when `--connection` settings pick no other scheme; found as `signedIn`
 * finds it, in `--state DIR` then the default state folder.
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
 * where every refresh goes. The connection as given when there is no sign-in. A connection's
 * endpoints are in one place: `--auth-base-url` on a signed-in connection must be the one it
 * signed in at (its refresh token is for that server alone).
 */
export function signedInConnection(connection: ConnectionInput, signed: SignedIn | undefined): ConnectionInput {
  if (!signed) return connection;
  const { kept } = signed;
  const given = connection.authBaseUrl;
  if (given !== undefined && (kept.authBaseUrl === undefined || !sameAuthBase(given, kept.authBaseUrl)))
    throw new UsageError(
      `--auth-base-url ${excerpt(given)}: connection '${kept.connection}' of ${kept.connector} was signed in at ${kept.authBaseUrl === undefined ? "the connector's own endpoints" : excerpt(kept.authBaseUrl)}, where its token set is refreshed; give that URL or none, or sign in again with plugboard auth login ${kept.connector} --connection-id ${kept.connection} --auth-base-url ${excerpt(given)}`,
    );
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
