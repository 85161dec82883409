import { connectionIdOption } from '../connection-name.js';
import { wantsJson, writeJsonLine } from '../io.js';
import { connectorCredentials } from '../kept-connections.js';
import type { Invocation } from '../invocation.js';
import { listSignedIn, signInFolders } from '../signed-in.js';
import { stateFolder } from '../state.js';

/**
 * `plugboard auth status [--connection-id NAME]`: each connection (of that name) signed in with
 * `auth login`, as `check`, `run` and `record` find it (`--state DIR`, then the default state
 * folder), with the folder it is kept in, its scheme, when its access token expires, its last
 * check and the stand-in it signed in at (`--auth-base-url`); never a token or a secret. JSON
 * (`{"connections": [...]}`) with `--json` or when stdout is not a terminal, else a line each.
 */
export async function authStatusCommand({ values, io, messages }: Invocation): Promise<void> {
  const given = values.state as string | undefined;
  // Refuses an empty --state, and a command line that names no state folder at all.
  const { dir } = stateFolder(io, given, 'auth status');
  const folders = signInFolders(io, given);
  const only = connectionIdOption(values, messages, true);
  const listed = (await listSignedIn(folders)).filter(({ kept }) => only === undefined || kept.connection === only);
  const connections = await Promise.all(
    listed.map(async ({ kept, state }) => {
      const stored = await (await connectorCredentials(state, kept.connector)).read(kept.connection);
      const expiry = stored?.tokens.expiresAt;
      return {
        connector: kept.connector,
        connection: kept.connection,
        scheme: kept.scheme,
        clientId: kept.clientId,
        authBaseUrl: kept.authBaseUrl ?? null,
        signedInAt: kept.signedInAt,
        expiresAt: expiry === undefined ? null : new Date(expiry).toISOString(),
        renewable: stored?.tokens.refreshToken !== undefined,
        lastCheck: kept.lastCheck ?? null,
        stateFolder: state,
      };
    }),
  );
  if (wantsJson({ values, io })) return writeJsonLine(io.stdout, { connections });
  if (connections.length === 0) {
    const where = folders.join(', then ');
    io.stdout.write(
      `No connection signed in (state folder ${where}); sign in with plugboard auth login <connector>.\n`,
    );
    return;
  }
  for (const c of connections) {
    const expiry = c.expiresAt ? `expires ${c.expiresAt}${c.renewable ? ' (renewed as used)' : ''}` : 'no known expiry';
    const check = c.lastCheck ? `last check ${c.lastCheck.state} at ${c.lastCheck.checkedAt}` : 'never checked';
    const at = c.authBaseUrl ? `  signed in at the stand-in ${c.authBaseUrl}` : '';
    // Said only of a sign-in found past the first folder: the default one, when --state holds none.
    const kept = c.stateFolder === dir ? '' : `  kept in ${c.stateFolder}`;
    io.stdout.write(`${c.connector}  ${c.connection}  ${c.scheme}  ${expiry}  ${check}${at}${kept}\n`);
  }
}
