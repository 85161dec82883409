import { useApproval } from '../approval.js';
import type { ConnectionCredential } from '../credentials.js';
import { passGate, type PreparedAction } from '../run.js';
import type { IdempotencyRecord, RunningRecord } from '../stores.js';
import { IdempotencyKeyReusedError, IdempotencyUnsettledError, stopIfCancelled } from './errors.js';
import { digestOf, eventBase } from './events.js';
import { credentialFor } from './host-connection.js';
import { fingerprint, providerKey, safeToForget, uncertainRecord } from './key-claim.js';
import type { DestinationOutcome, PreparedExecution } from './outcomes.js';
import { runSettings } from './preparation.js';
import type { ExecuteRequest } from './requests.js';
import type { ExecutorSetup } from './setup.js';

/** The gate passed and the credential resolved, before any claim or call: the run given back is the one that runs. */
async function gated(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
): Promise<{ run: PreparedAction; credential: ConnectionCredential }> {
  const run = passGate(ready.prepared, request.approval, setup.clock.now());
  await useApproval(run.needsApproval, request.approval);
  const credential = await credentialFor(setup, ready.connection.id);
  stopIfCancelled(request.signal, `${ready.runner.key} ${ready.prepared.action.key}`);
  return { run, credential };
}

/** Sends the write once; its one page holds the result. */
async function writeOnce(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
  gate: { run: PreparedAction; credential: ConnectionCredential },
): Promise<unknown> {
  const key = request.idempotencyKey;
  const keyed = key === undefined ? {} : { idempotencyKey: providerKey(key, fingerprint(ready)) };
  for await (const page of ready.runner.run(gate.run, { ...runSettings(setup, request, gate.credential), ...keyed }))
    return page.records[0];
  return undefined;
}

function started(setup: ExecutorSetup, request: ExecuteRequest, ready: PreparedExecution, digest: { digest?: string }) {
  request.onProgress?.({
    ...eventBase(ready, setup.clock),
    type: 'started',
    environment: ready.prepared.environment,
    ...digest,
  });
}

/** The first run's result under the key, when it is the same run and it succeeded. */
function replay(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
  key: string,
  record: IdempotencyRecord,
): DestinationOutcome {
  if (record.fingerprint !== fingerprint(ready)) throw new IdempotencyKeyReusedError(key, record, ready.digest);
  if (record.state !== 'succeeded') throw new IdempotencyUnsettledError(key, record);
  request.onProgress?.({ ...eventBase(ready, setup.clock), type: 'replayed', idempotencyKey: key });
  return { direction: 'destination', result: record.result, replayed: true, digest: ready.digest };
}

async function runUnkeyed(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
): Promise<DestinationOutcome> {
  const gate = await gated(setup, request, ready);
  started(setup, request, ready, digestOf(ready));
  const result = await writeOnce(setup, request, ready, gate);
  request.onProgress?.({ ...eventBase(ready, setup.clock), type: 'finished' });
  return { direction: 'destination', result, replayed: false, ...digestOf(ready) };
}

/** Claims the key, runs, and settles it: succeeded with the result, released, or uncertain when the provider may have acted. */
async function runKeyed(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
  key: string,
): Promise<DestinationOutcome> {
  const { idempotency } = setup.stores;
  // A repeated key returns the first result: nothing runs, so no approval is needed for it.
  const record = await idempotency.get(key);
  if (record) return replay(setup, request, ready, key, record);
  const gate = await gated(setup, request, ready);
  const now = () => new Date(setup.clock.now()).toISOString();
  const running: RunningRecord = {
    state: 'running',
    fingerprint: fingerprint(ready),
    digest: ready.digest,
    connector: ready.runner.key,
    action: ready.prepared.action.key,
    startedAt: now(),
  };
  const existing = await idempotency.claim(key, running);
  if (existing) return replay(setup, request, ready, key, existing);
  started(setup, request, ready, { digest: ready.digest });
  let result: unknown;
  try {
    result = await writeOnce(setup, request, ready, gate);
  } catch (error) {
    if (safeToForget(error, ready.prepared.action)) await idempotency.release(key);
    else await idempotency.settle(key, uncertainRecord(running, error, now()));
    throw error;
  }
  await idempotency.settle(key, { ...running, state: 'succeeded', result: result ?? null, finishedAt: now() });
  request.onProgress?.({ ...eventBase(ready, setup.clock), type: 'finished' });
  return { direction: 'destination', result, replayed: false, digest: ready.digest };
}

/**
 * Runs a prepared destination (`prepareExecution`) once. With `request.idempotencyKey`, a repeat
 * of a run that succeeded returns its result (`replayed`) without passing the gate or calling the
 * provider; otherwise the gate is passed, the key claimed, the write sent with a key derived for
 * the provider, and the key settled. Runs under one key in this setup go one after the other.
 */
export async function runDestination(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
): Promise<DestinationOutcome> {
  const { action } = ready.prepared;
  if (action.direction === 'source')
    throw new TypeError(`${ready.runner.key} ${action.key} is a source, not a destination`);
  const key = request.idempotencyKey;
  if (key === undefined) return runUnkeyed(setup, request, ready);
  return setup.oneAtATime(key, () => runKeyed(setup, request, ready, key));
}
