import { z } from 'zod';
import { systemClock } from './clock.js';
import type { ConnectionInput } from './connection.js';
import { isOAuth2Scheme, schemeType } from './auth/schemes/index.js';
import { renewKeyHint } from './auth/schemes/key.js';
import { checkCredential, credentialExpiry } from './credentials.js';
import { defineAction, type Environment, type SourceAction } from './definition/action.js';
import type { AuthScheme } from './definition/auth.js';
import type { Connector } from './definition/connector.js';
import { ConnectorError } from './errors.js';
import { excerpt } from './excerpt.js';
import { passGate, prepareRun, type RunSettings, runPrepared } from './run.js';

/**
 * The connection check: a connector's `check(ctx)` run as an action of its own, through the
 * same preparation, gate and pipeline as every action (budget, network policy, redaction), and
 * its outcome told as the platform's LiveCheck, with what a person must do when it failed.
 */

export type LiveCheckState = 'passed' | 'failed' | 'credentials_changed' | 'expired' | 'not_checked';

/** The platform's LiveCheck of a connection. Never holds a secret. */
export interface LiveCheck {
  connectionId: string;
  state: LiveCheckState;
  /** True when the check just ran against the connection as it is now. */
  current: boolean;
  /** When the check ran (ISO 8601, from the clock); null when it did not run. */
  checkedAt: string | null;
  /** When the credential stops working, when known: the token set's expiry or the key's. */
  expiresAt: string | null;
  summary: string | null;
  /** What a person must do, when anything. */
  fixHint?: string | null;
}

export interface CheckOptions
  extends Pick<
    RunSettings,
    'credential' | 'signal' | 'log' | 'logLevel' | 'transport' | 'retry' | 'clock' | 'secrets'
  > {
  /** The connection checked: its id, base URL and settings (`authScheme`). */
  connection?: ConnectionInput;
  /** The network policy the check connects under; default `sandbox`. */
  environment?: Environment;
  /**
   * Told of the typed failure behind a check that did not pass (redacted, as every error of a
   * run): its `code`, and `retryable` when the same check may well pass a moment later (the
   * provider unreachable or down), which the LiveCheck alone does not say.
   */
  onFailure?: (error: ConnectorError) => void;
}

/** The action a check runs as: its requests draw on the connector's `default` budget. */
const CHECK_KEY = 'connection.check';
const Checked = z.object({}).meta({ id: 'PlugboardConnectionCheck' });
const probes = new WeakMap<Connector, Connector>();

function probeOf(connector: Connector, check: NonNullable<Connector['check']>): Connector {
  let probe = probes.get(connector);
  if (probe) return probe;
  const action: SourceAction = defineAction({
    key: CHECK_KEY,
    label: 'Check the connection',
    direction: 'source',
    entity: Checked,
    input: z.object({}),
    effect: 'read',
    // A check answers now: a rate limit's wait is a failed check, not a held one.
    maxRetryAfterSeconds: 0,
    async *read(ctx) {
      await check(ctx);
      yield { records: [] };
    },
  });
  probe = { ...connector, actions: [action], action: (key) => (key === CHECK_KEY ? action : undefined) };
  probes.set(connector, probe);
  return probe;
}

/** One try: a check that failed is reported now, not after the pipeline's backoff. */
const NO_RETRY = { retries: 0 };

/**
 * Runs the connector's `check(ctx)` for a connection and answers its LiveCheck: `passed`;
 * `credentials_changed` when the provider refused the credential (401), `expired` when it was
 * past its known expiry; `failed` for a 403 (a missing scope or permission), a connection that
 * cannot be used as given, and a provider that could not be reached or failed; `not_checked`
 * when the connector declares no check. Never throws a provider's or a credential's failure.
 */
export async function checkConnection(connector: Connector, options: CheckOptions = {}): Promise<LiveCheck> {
  const clock = options.clock ?? systemClock;
  const connectionId = options.connection?.id ?? 'default';
  const resolved = await options.credential?.();
  const scheme = schemeOf(connector, options.connection);
  const expiry = expiryOf(connector, scheme, resolved);
  const expiresAt = isoOrNull(expiry);
  if (!connector.check) {
    return {
      connectionId,
      state: 'not_checked',
      current: false,
      checkedAt: null,
      expiresAt,
      summary: `${connector.name} has no connection check: the credential is tried by the first run`,
      fixHint: null,
    };
  }
  const { connection, environment, retry, onFailure, ...settings } = options;
  try {
    const prepared = prepareRun(probeOf(connector, connector.check), CHECK_KEY, {
      connection: connection ?? {},
      environment: environment ?? 'sandbox',
      input: {},
    });
    const run = runPrepared(passGate(prepared, undefined, clock.now()), {
      ...settings,
      credential: () => resolved,
      retry: retry ?? NO_RETRY,
    });
    for await (const _page of run);
  } catch (error) {
    if (!(error instanceof ConnectorError)) throw error;
    onFailure?.(error);
    const now = clock.now();
    return {
      connectionId,
      ...verdict(connector, scheme, error, expiry !== undefined && expiry <= now),
      current: true,
      checkedAt: new Date(now).toISOString(),
      expiresAt: await expiresAfter(connector, scheme, options, expiresAt),
    };
  }
  return {
    connectionId,
    state: 'passed',
    current: true,
    checkedAt: new Date(clock.now()).toISOString(),
    expiresAt: await expiresAfter(connector, scheme, options, expiresAt),
    summary: `${connector.name} accepted the credential`,
    fixHint: null,
  };
}

/** When the credential stops working, when known; undefined too for one the run will refuse. */
function expiryOf(connector: Connector, scheme: AuthScheme | undefined, credential: unknown): number | undefined {
  try {
    return scheme ? credentialExpiry(checkCredential(connector.key, scheme, credential)) : undefined;
  } catch {
    // The run reports the credential's problem.
    return undefined;
  }
}

function isoOrNull(time: number | undefined): string | null {
  return time === undefined ? null : new Date(time).toISOString();
}

/**
 * The expiry after the check ran: an OAuth2 token set the run renewed is the host's to keep, so
 * its resolver is asked again for the set it holds now (`before` when it has none to give).
 */
async function expiresAfter(
  connector: Connector,
  scheme: AuthScheme | undefined,
  options: CheckOptions,
  before: string | null,
): Promise<string | null> {
  if (!isOAuth2Scheme(scheme) || !options.credential) return before;
  try {
    return isoOrNull(expiryOf(connector, scheme, await options.credential())) ?? before;
  } catch {
    return before;
  }
}

/** The scheme the connection picks, when it picks one that exists; the run reports one that does not. */
function schemeOf(connector: Connector, connection: ConnectionInput | undefined): AuthScheme | undefined {
  const picked = connection?.settings?.authScheme;
  return picked === undefined
    ? connector.auth[0]
    : connector.auth.find((scheme) => scheme.id === String(picked).toLowerCase());
}

function verdict(
  connector: Connector,
  scheme: AuthScheme | undefined,
  error: ConnectorError,
  pastExpiry: boolean,
): Pick<LiveCheck, 'state' | 'summary' | 'fixHint'> {
  const summary = excerpt(error.message, 500);
  const name = connector.name;
  if (error.code === 'credentials_expired' || (error.status === 401 && pastExpiry))
    return { state: 'expired', summary, fixHint: renewHint(name, scheme) };
  if (error.status === 401) return { state: 'credentials_changed', summary, fixHint: renewHint(name, scheme) };
  if (error.status === 403) return { state: 'failed', summary, fixHint: permissionHint(name, scheme) };
  if (error.code === 'invalid_connection' || error.code === 'invalid_input')
    return { state: 'failed', summary, fixHint: 'Correct the connection as the summary says, then check it again.' };
  if (error.retryable)
    return {
      state: 'failed',
      summary,
      fixHint: `${name} could not be reached or failed to answer; check the connection again in a few minutes.`,
    };
  return { state: 'failed', summary, fixHint: `Look at the summary; check the connection again once it is resolved.` };
}

function renewHint(name: string, scheme: AuthScheme | undefined): string {
  return scheme ? schemeType(scheme).renewHint(name) : renewKeyHint(name);
}

function permissionHint(name: string, scheme: AuthScheme | undefined): string {
  const hint = scheme && schemeType(scheme).permissionHint?.(scheme, name);
  return (
    hint ??
    `Ask the ${name} administrator to give this credential the permissions the connector needs, then check again.`
  );
}
