import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { excerpt, type Environment } from '@plugboard/sdk';
import { memoryStore } from '@plugboard/sdk/host';
import { messagesLog } from '../action-args.js';
import { actionExecutor } from '../action-executor.js';
import { openApprovalStore } from '../approval-store.js';
import { authBaseUrlOption } from '../auth-base-option.js';
import type { ApprovalStore } from '@plugboard/mcp';
import { connectionIdOption } from '../connection-name.js';
import { environmentCredential } from '../credential-variable.js';
import type { Invocation } from '../invocation.js';
import { writeJsonLine } from '../io.js';
import { type ServedConnector, servingConnector } from '../mcp-plugins.js';
import { jsonOption, portOption, UsageError } from '../usage.js';

/**
 * `plugboard mcp`: `@plugboard/mcp`'s server wired to the command line. The connector is found
 * as `run` finds it, and its calls go through the same executor on one connection (its
 * credential from a signed-in connection or PLUGBOARD_CREDENTIAL); checkpoints and idempotency
 * keys live in `--state` (in memory without it). stdio by default; `--http PORT` serves
 * Streamable HTTP and prints its URL as one JSON line. Runs until stdin ends (stdio) or Ctrl+C.
 */

function positive(flag: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  const text = String(value);
  if (!/^[1-9]\d{0,5}$/.test(text))
    throw new UsageError(`${flag} must be a whole number from 1, not '${excerpt(text)}'`);
  return Number(text);
}

export const mcpCommand = (invocation: Invocation) => servingConnector(invocation, serve);

async function serve(invocation: Invocation, found: ServedConnector): Promise<void> {
  const { io, messages, signal } = invocation;
  const values = invocation.values as Record<string, string | undefined>;
  const environment = (values.environment ?? 'sandbox') as Environment;
  const settings = jsonOption('--connection', values.connection, undefined);
  if (settings !== undefined && (settings === null || typeof settings !== 'object' || Array.isArray(settings)))
    throw new UsageError('--connection must be a JSON object of connection settings');
  const id = connectionIdOption(values, messages) ?? 'default';
  const authBaseUrl = authBaseUrlOption(values['auth-base-url'], environment, found.connector);
  // Every option is checked before anything is opened: a refused one leaves nothing to close.
  const mcp = await import('@plugboard/mcp');
  const tools = chosenTools(mcp, found, values.actions);
  const maxTools = positive('--max-tools', values['max-tools'], mcp.DEFAULT_MAX_TOOLS);
  const stores = values.state
    ? (await import('@plugboard/runtime')).fileStore(resolve(io.cwd, values.state))
    : memoryStore();
  const host = await actionExecutor(
    io,
    {
      ...found.runs,
      dir: found.dir,
      action: '',
      input: {},
      connection: {
        id,
        ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
        ...(authBaseUrl === undefined ? {} : { authBaseUrl }),
        ...(settings ? { settings: settings as Record<string, unknown> } : {}),
      },
      environment,
      credential: environmentCredential(io, { connector: found.connector }),
      log: messagesLog(messages),
      values,
    },
    id,
    stores,
  );
  let place: Awaited<ReturnType<typeof openApprovalStore>> | undefined;
  try {
    place = await openApprovalStore(invocation, 'plugboard mcp', { beside: true });
    const options = {
      tools,
      approvals: mcp.approvalDesk(place.store),
      executor: host.executor,
      connectionId: id,
      environment,
      checkpoints: stores.checkpoints,
      maxTools,
      name: `plugboard-${found.key}`,
      version: found.version,
    };
    if (values.http !== undefined) return await serveHttp(invocation, options, place.store);
    const served = mcp.serveStdio(options, { caller: values.caller ?? 'stdio' });
    await Promise.race([once(process.stdin, 'end'), once(process.stdin, 'close'), once(signal, 'abort')]);
    await served.close();
  } finally {
    await place?.close();
    await host.close();
  }
}

/** The tools of the connector's actions, or of those `--actions` names (each known, or refused by name). */
function chosenTools(mcp: Mcp, found: ServedConnector, actions: string | undefined) {
  const only = actions
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const tools = mcp.actionTools([found.tools], only);
  if (only) {
    const known = new Set(tools.map((tool) => tool.action.key));
    const unknown = only.filter((name) => !known.has(name) && !known.has(name.split('.').slice(1).join('.')));
    if (unknown.length > 0)
      throw new UsageError(`--actions: ${found.key} has no action ${unknown.map(excerpt).join(', ')}`);
  }
  return tools;
}

type Mcp = typeof import('@plugboard/mcp');
type ServerOptions = import('@plugboard/mcp').ToolServerOptions;

/** The approval page's sign-in, from `--approval-client` and the environment's secrets; none without the flag. */
function approvalSignIn(invocation: Invocation, issuer: string | undefined) {
  const values = invocation.values as Record<string, string | undefined>;
  const clientId = values['approval-client'];
  if (clientId === undefined) return undefined;
  if (!issuer) throw new UsageError('--approval-client needs --authorization-server, where people sign in');
  const { env } = invocation.io;
  const cookieSecret = env.PLUGBOARD_COOKIE_SECRET;
  if (cookieSecret !== undefined && cookieSecret.length < 32)
    throw new UsageError('PLUGBOARD_COOKIE_SECRET must be at least 32 characters');
  const clientSecret = env.PLUGBOARD_APPROVAL_CLIENT_SECRET;
  return {
    issuer,
    clientId,
    // Without a shared secret the sessions and forms are this process's only: a restart asks people to sign in again.
    cookieSecret: cookieSecret ?? randomBytes(32).toString('base64url'),
    ...(clientSecret ? { clientSecret } : {}),
  };
}

/**
 * `--http PORT`: stateless Streamable HTTP; with `--authorization-server` a protected resource
 * (the caller the token's subject), and with `--approval-client` the approval page beside `/mcp`,
 * whose URL a pending approval tells the agent. Prints `{ url, tools }` and serves until Ctrl+C.
 */
async function serveHttp(invocation: Invocation, options: ServerOptions, store: ApprovalStore): Promise<void> {
  const mcp: Mcp = await import('@plugboard/mcp');
  const values = invocation.values as Record<string, string | undefined>;
  const { port } = portOption(values.http);
  const issuer = values['authorization-server'];
  const signIn = approvalSignIn(invocation, issuer);
  // The resource and the page's origin are this server's own URL unless --resource names the public one: known once it listens.
  let guard: import('@plugboard/mcp').ProtectedResource | undefined;
  let site: import('@plugboard/mcp').ApprovalSite | undefined;
  const served = await mcp.serveHttp(
    { ...options, approvals: mcp.approvalDesk(store, signIn ? { pageUrl: (id) => site!.pageUrl(id) } : {}) },
    {
      port,
      host: values.host ?? '127.0.0.1',
      ...(issuer
        ? {
            authenticate: (request) => guard!.authenticate(request),
            routes: async (request, response) =>
              guard!.routes(request, response) || ((await site?.routes(request, response)) ?? false),
          }
        : {}),
    },
  );
  const resource = values.resource ?? served.url;
  if (issuer)
    guard = mcp.protectedResource({
      resource,
      authorizationServer: issuer,
      ...(values.scopes ? { scopes: values.scopes.split(',').filter(Boolean) } : {}),
    });
  if (signIn) site = mcp.approvalSite({ store, origin: resource, signIn });
  writeJsonLine(invocation.io.stdout, {
    url: served.url,
    tools: options.tools.length,
    ...(site
      ? { approvals: `${new URL(resource).origin}${mcp.APPROVALS_PATH}/`, signInRedirect: site.redirectUri }
      : {}),
  });
  const { signal } = invocation;
  if (!signal.aborted) await once(signal, 'abort');
  await served.close();
}
