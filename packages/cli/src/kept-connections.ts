import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import type { TokenSet } from '@plugboard/sdk';
import type { CredentialStore, LiveCheck } from '@plugboard/sdk/host';

/**
 * The connections a person signed in to with `plugboard auth login`, kept in the state folder:
 * what names each one (connector, connection, scheme, client id, when; never a secret) in
 * `connections/`, and its token set in the runtime's file credential store (`credentials/`).
 * Both folders are for their owner only (0700), each file too (0600).
 */

export interface KeptConnection {
  connector: string;
  connection: string;
  /** The id of the auth scheme signed in with (the connection's `authScheme`). */
  scheme: string;
  /** The OAuth2 client signed in as: not a secret, kept so `run` and `check` need no flag. */
  clientId: string;
  /** `auth login --auth-base-url`: the stand-in authorization server every refresh goes to (sandbox only; not a secret). */
  authBaseUrl?: string;
  signedInAt: string;
  /** The latest `plugboard check` of the connection. */
  lastCheck?: { state: LiveCheck['state']; checkedAt: string };
}

const CONNECTIONS = 'connections';

function fileOf(state: string, connector: string, connection: string): string {
  const name = createHash('sha256').update(`${connector}\u0000${connection}`).digest('hex').slice(0, 40);
  return join(state, CONNECTIONS, `${name}.json`);
}

/** The connector's token sets in the state folder's credential store, each under `<connector>/<connection>`. */
export async function connectorCredentials(state: string, connector: string): Promise<CredentialStore> {
  const { fileCredentialStore } = await import('@plugboard/runtime');
  const store = fileCredentialStore(state);
  const id = (connection: string) => `${connector}/${connection}`;
  return {
    read: (connection) => store.read(id(connection)),
    compareAndSet: (connection, expected, next) => store.compareAndSet(id(connection), expected, next),
  };
}

/** Writes the token set a sign-in got over whatever the store held, as one more version. */
export async function keepTokens(store: CredentialStore, connection: string, tokens: TokenSet): Promise<void> {
  // Another process may refresh the old set meanwhile: the sign-in's set wins, read again and written over it.
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (await store.compareAndSet(connection, await store.read(connection), tokens)) return;
  }
  throw new Error(`the token set of connection '${connection}' kept changing while it was written; sign in again`);
}

export async function readKept(
  state: string,
  connector: string,
  connection: string,
): Promise<KeptConnection | undefined> {
  try {
    return JSON.parse(await readFile(fileOf(state, connector, connection), 'utf8')) as KeptConnection;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Every connection kept in the state folder, by connector then connection. */
export async function listKept(state: string): Promise<KeptConnection[]> {
  let names: string[];
  try {
    names = await readdir(join(state, CONNECTIONS));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const kept = await Promise.all(
    names
      .filter((name) => name.endsWith('.json'))
      .map(async (name) => JSON.parse(await readFile(join(state, CONNECTIONS, name), 'utf8')) as KeptConnection),
  );
  return kept.sort(byConnection);
}

/** The order connections are listed in: by connector, then connection. */
export function byConnection(a: KeptConnection, b: KeptConnection): number {
  return a.connector.localeCompare(b.connector) || a.connection.localeCompare(b.connection);
}

/** Writes what names a connection, whole (a temporary file renamed), readable by its owner only. */
export async function writeKept(state: string, kept: KeptConnection): Promise<void> {
  await mkdir(join(state, CONNECTIONS), { recursive: true, mode: 0o700 });
  const file = fileOf(state, kept.connector, kept.connection);
  const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(kept)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, file);
}
