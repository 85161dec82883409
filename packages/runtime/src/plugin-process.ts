import { CancelledError, type Connector, type Transport, type TokenSet } from '@plugboard/sdk';
import {
  actionToolDescriptions,
  createHostTransport,
  isOAuth2Scheme,
  passGate,
  prepareOptions,
  Redactor,
  resumeFrom,
  runPrepared,
  type TokenSource,
  prepareRun,
  retryPolicy,
  type PreparedRun,
  type ActionToolDescription,
} from '@plugboard/sdk/host';
import { Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { jsonLines } from './json-lines.js';
import { connectorOf, errorText } from './load.js';
import { type ChildMessage, FIRST_PAGES, type HostMessage, type StartMessage, type WirePlan } from './protocol.js';
import { shareHostSdk } from './sdk-sharing.js';
import { fromWire, toWire } from './wire.js';

/**
 * The plugin's side of an isolated plugin: one process per package, started by the host with
 * an empty environment under Node's permission model. It imports the connector's entry, answers
 * with its description, then prepares and runs actions for the host: the host's messages arrive
 * as JSON lines on stdin, the answers leave as JSON lines on descriptor 3, and what the plugin
 * prints on stdout and stderr is its log. The writer and the host's nonce are taken before the
 * plugin's code runs: what the plugin writes to descriptor 3 itself cannot quote the nonce.
 */

const out = new Socket({ fd: 3, readable: false, writable: true });
const write = out.write.bind(out);

// Prepared runs the host may still run; the oldest are dropped past this.
const MAX_PLANS = 1000;
// The host's messages are its own; the bound only keeps a broken line from growing without end.
const MAX_HOST_MESSAGE = 256 * 1024 * 1024;

const inbox: HostMessage[] = [];
let deliver: ((message: HostMessage) => void) | undefined;
process.stdin.on(
  'data',
  jsonLines(
    MAX_HOST_MESSAGE,
    (message) => (deliver ? deliver(message as HostMessage) : inbox.push(message as HostMessage)),
    () => process.exit(71),
  ),
);
// A host that ended, however it ended, ends its plugins too.
process.stdin.on('end', () => process.exit(0));

const start = await new Promise<StartMessage>((resolve) => {
  deliver = (message) => resolve(message as unknown as StartMessage);
});
const post = (message: ChildMessage) => void write(`${JSON.stringify({ ...message, nonce: start.nonce })}\n`);

let connector: Connector | undefined;
let transport: Transport | undefined;
const plans = new Map<string, PreparedRun>();
/** A run in this process: how to cancel it, and how many more pages the host has asked for. */
interface RunState {
  controller: AbortController;
  credits: number;
  wake?: () => void;
  /** The run's asks for token sets the host has not answered yet, by number. */
  asks: Map<number, { resolve(tokens: TokenSet): void; reject(error: Error): void }>;
}
const runs = new Map<string, RunState>();
let nextPlan = 0;

function remember(prepared: PreparedRun): WirePlan {
  const id = String((nextPlan += 1));
  plans.set(id, prepared);
  if (plans.size > MAX_PLANS) plans.delete(plans.keys().next().value!);
  const { action } = prepared;
  return {
    id,
    action: {
      key: action.key,
      direction: action.direction,
      // Spelled out, as the action's effect gives it: the host holds no definition to derive it from.
      retry: retryPolicy(action),
      ...(action.billable ? { billable: true } : {}),
      // The host frees a key whose write failed when the provider deduplicates on it.
      ...(action.direction === 'destination' && action.idempotencyHeader
        ? { idempotencyHeader: action.idempotencyHeader }
        : {}),
    },
    input: prepared.input,
    connection: { id: prepared.connection.id, scheme: prepared.connection.scheme.id },
    environment: prepared.environment,
    checkpoint: prepared.checkpoint,
    checkpointVersion: prepared.checkpointVersion,
    needsApproval: prepared.needsApproval,
  };
}

function planOf(id: string): PreparedRun {
  const prepared = plans.get(id);
  if (!prepared)
    throw new Error(
      `the prepared run ${id} is no longer held by the plugin's process (it restarted, or held too many); prepare it again`,
    );
  return prepared;
}

/**
 * The token source of a run whose token sets the host keeps: a set is asked for once and used
 * until it expires; after a 401 the host is told which set was refused. One ask at a time.
 */
function hostTokens(id: string, state: RunState): TokenSource {
  let asked = 0;
  let held: { ask: number; tokens: TokenSet } | undefined;
  let asking: Promise<TokenSet> | undefined;
  const ask = (refused?: number) =>
    (asking ??= new Promise<TokenSet>((resolve, reject) => {
      const number = (asked += 1);
      state.asks.set(number, {
        resolve: (tokens) => {
          held = { ask: number, tokens };
          resolve(tokens);
        },
        reject,
      });
      post({ type: 'tokens', id, ask: number, ...(refused === undefined ? {} : { refused }) });
    }).finally(() => (asking = undefined)));
  return {
    current: () =>
      held && !(held.tokens.expiresAt !== undefined && held.tokens.expiresAt <= Date.now())
        ? Promise.resolve(held.tokens)
        : ask(),
    // Another request of the run may have had a newer set since `used` was sent.
    refreshAfter401: (used) =>
      held && held.tokens.accessToken !== used.accessToken ? Promise.resolve(held.tokens) : ask(held?.ask),
  };
}

const NO_SECRETS = new Redactor();

/** The host's answer to one of a run's asks for a token set. */
function answerAsk(message: Extract<HostMessage, { type: 'tokens' }>): void {
  const asks = runs.get(message.id)?.asks;
  const waiting = asks?.get(message.ask);
  if (!waiting) return;
  asks!.delete(message.ask);
  if (message.tokens) waiting.resolve(message.tokens);
  else waiting.reject(fromWire(message.error, NO_SECRETS, 'the host'));
}

async function run(message: Extract<HostMessage, { type: 'run' }>): Promise<void> {
  const state: RunState = { controller: new AbortController(), credits: FIRST_PAGES, asks: new Map() };
  runs.set(message.id, state);
  const { signal } = state.controller;
  try {
    const prepared = planOf(message.plan);
    plans.delete(message.plan);
    // The host's gate let this run through; the same gate here holds the plugin to the digest the host approved.
    const gated = passGate(prepared, message.approval, Date.parse(message.now));
    transport ??= createHostTransport({
      ...(start.allow ? { network: { allow: start.allow } } : {}),
      ...(start.redis ? { redis: start.redis } : {}),
    });
    const pages = runPrepared(gated, {
      credential: () => message.credential,
      signal,
      log: (entry) => post({ type: 'log', id: message.id, entry }),
      logLevel: message.logLevel,
      transport,
      ...(message.retry ? { retry: message.retry } : {}),
      ...(message.idempotencyKey === undefined ? {} : { idempotencyKey: message.idempotencyKey }),
      ...(message.hostTokens ? { tokens: hostTokens(message.id, state) } : {}),
      onProgress: (event) => post({ type: 'progress', id: message.id, event }),
    });
    // The plugin reads at most one page ahead of the host's acknowledgements: the next page is on
    // its way while the host works on this one, and a cancelled run stops one page later at most.
    for (const iterator = pages[Symbol.asyncIterator](); ; ) {
      while (state.credits === 0 && !signal.aborted) await new Promise<void>((resolve) => (state.wake = resolve));
      if (signal.aborted) {
        await iterator.return?.(undefined);
        throw new CancelledError(`${prepared.connector.key} ${prepared.action.key}: the run was cancelled`);
      }
      state.credits -= 1;
      const next = await iterator.next();
      if (next.done) break;
      post({ type: 'page', id: message.id, page: next.value });
    }
    post({ type: 'done', id: message.id });
  } catch (error) {
    post({ type: 'error', id: message.id, error: toWire(error) });
  } finally {
    runs.delete(message.id);
  }
}

function answer(id: string, work: () => WirePlan): void {
  try {
    post({ type: 'prepared', id, plan: work() });
  } catch (error) {
    post({ type: 'error', id, error: toWire(error) });
  }
}

function handle(message: HostMessage): void {
  const loaded = connector!;
  switch (message.type) {
    case 'prepare': {
      const { action, field, input, connection, environment } = message;
      answer(message.id, () =>
        remember(
          field === undefined
            ? prepareRun(loaded, action, { input, connection, environment })
            : prepareOptions(loaded, action, field, { query: input, connection, environment }),
        ),
      );
      break;
    }
    case 'resume':
      answer(message.id, () => remember(resumeFrom(planOf(message.plan), message.checkpoint, message.version)));
      break;
    case 'run':
      void run(message);
      break;
    case 'tokens':
      answerAsk(message);
      break;
    case 'usage': {
      const { rss, heapUsed } = process.memoryUsage();
      post({ type: 'usage', id: message.id, rss, heapUsed });
      break;
    }
    case 'pull':
    case 'cancel': {
      const state = runs.get(message.id);
      if (!state) break;
      if (message.type === 'pull') state.credits += 1;
      else state.controller.abort();
      state.wake?.();
      break;
    }
  }
}

async function load(): Promise<ChildMessage> {
  let module: Record<string, unknown>;
  try {
    // The plugin's imports of the SDK go to this process's SDK: one set of error classes.
    for (const root of start.sdkRoots) shareHostSdk(root);
    module = (await import(pathToFileURL(start.entryPath).href)) as Record<string, unknown>;
  } catch (error) {
    // A refusal of the permission model names what was refused: the fix is in the plugin's dependencies.
    const resource = (error as { resource?: unknown }).resource;
    return {
      type: 'failed',
      reason: `the entry ${start.entry} threw on import: ${errorText(error)}${typeof resource === 'string' ? ` (${resource})` : ''}`,
    };
  }
  const found = connectorOf(module.default);
  if ('problem' in found) return { type: 'failed', reason: found.problem };
  connector = found.connector;
  let tools: ActionToolDescription[] | undefined;
  try {
    // Asked for by a tool server only: the schemas cost time every start would pay.
    if (start.tools) tools = actionToolDescriptions(connector);
  } catch (error) {
    return { type: 'failed', reason: `its actions could not be described as tools: ${errorText(error)}` };
  }
  return {
    type: 'described',
    connector: {
      key: connector.key,
      name: connector.name,
      connectorVersion: connector.version,
      actions: connector.actions.map((action) => ({
        key: action.key,
        label: action.label,
        direction: action.direction,
      })),
      ...(tools ? { tools } : {}),
      oauth2: connector.auth.filter(isOAuth2Scheme),
    },
  };
}

const loaded = await load();
post(loaded);
// A plugin that did not load is ended by the host, which has its reason; one that did serves the host.
if (loaded.type === 'described') {
  deliver = handle;
  for (const message of inbox.splice(0)) handle(message);
}
