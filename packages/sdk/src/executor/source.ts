import { createHash } from 'node:crypto';
import { useApproval } from '../approval.js';
import { checkpointFromStore, checkpointToStore, type StoredCheckpoint } from '../checkpoint.js';
import type { Environment } from '../definition/action.js';
import { canonicalJson } from '../digest.js';
import { CheckpointTooNewError } from '../errors.js';
import { passGate, type PreparedAction } from '../run.js';
import { stopIfCancelled } from './errors.js';
import { digestOf, eventBase } from './events.js';
import { credentialFor } from './host-connection.js';
import type { PreparedExecution, SourceOutcome } from './outcomes.js';
import { runSettings } from './preparation.js';
import type { ExecuteRequest } from './requests.js';
import type { ExecutorSetup } from './setup.js';

/** The default name of a source's checkpoint stream. */
export function streamKey(parts: {
  connector: string;
  action: string;
  connectionId: string;
  environment: Environment;
  input: unknown;
}): string {
  const hash = createHash('sha256').update(canonicalJson(parts.input)).digest('hex').slice(0, 16);
  return `${parts.connector}/${parts.action}/${parts.connectionId}/${parts.environment}/${hash}`;
}

/**
 * The run resuming from the stream's stored checkpoint: one of an older version is migrated by
 * the runner; one of a newer connector is refused before the runner sees it (never read again from the start).
 */
async function resumed(
  setup: ExecutorSetup,
  ready: PreparedExecution,
  stream: string,
): Promise<{ kept: StoredCheckpoint | undefined; run: PreparedAction; version: number }> {
  const stored = await setup.stores.checkpoints.get(stream);
  const version = ready.prepared.checkpointVersion ?? 1;
  const kept = stored === undefined ? undefined : checkpointFromStore(stored);
  if (kept && kept.version > version)
    throw new CheckpointTooNewError(ready.runner.key, ready.prepared.action.key, kept.version, version);
  const run = kept ? await ready.runner.resume(ready.prepared, kept.checkpoint, kept.version) : ready.prepared;
  return { kept, run, version };
}

type OnPage = NonNullable<ExecuteRequest['onPage']>;

/** The pages of a run that passed the gate, each acknowledged by the host before its checkpoint is committed. */
async function readPages(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
  read: { run: PreparedAction; stream: string; version: number; checkpoint: unknown; onPage: OnPage },
): Promise<SourceOutcome> {
  const { checkpoints } = setup.stores;
  const subject = `${ready.runner.key} ${ready.prepared.action.key}`;
  const credential = await credentialFor(setup, ready.connection.id);
  stopIfCancelled(request.signal, subject);
  request.onProgress?.({
    ...eventBase(ready, setup.clock),
    type: 'started',
    environment: ready.prepared.environment,
    ...digestOf(ready),
    stream: read.stream,
    ...(read.checkpoint === undefined ? {} : { checkpoint: read.checkpoint }),
  });
  let { checkpoint } = read;
  let index = 0;
  let records = 0;
  for await (const page of ready.runner.run(read.run, runSettings(setup, request, credential))) {
    // A runner that reads ahead may hold a page read before the cancel: it is never acknowledged.
    stopIfCancelled(request.signal, subject);
    // The host acknowledges the page by resolving; only then does the checkpoint move on.
    await read.onPage(page, { index });
    const committed = page.checkpoint !== undefined;
    if (committed) {
      // A checkpoint resumed from an older version is stored as this one from the first page on.
      await checkpoints.commit(read.stream, checkpointToStore(page.checkpoint, read.version));
      checkpoint = page.checkpoint;
    }
    records += page.records.length;
    request.onProgress?.({
      ...eventBase(ready, setup.clock),
      type: 'page',
      index,
      records: page.records.length,
      totalRecords: records,
      committed,
      ...(committed ? { checkpoint: page.checkpoint } : {}),
    });
    index += 1;
  }
  request.onProgress?.({ ...eventBase(ready, setup.clock), type: 'finished', pages: index, records });
  return {
    direction: 'source',
    replayed: false,
    pages: index,
    records,
    checkpoint,
    stream: read.stream,
    ...digestOf(ready),
  };
}

/**
 * Runs a prepared source (`prepareExecution`): resumes from the stream's checkpoint (migrated
 * when older, refused when newer), passes the gate, hands each page to `request.onPage` and
 * commits the page's checkpoint only once the host acknowledged it.
 */
export async function runSource(
  setup: ExecutorSetup,
  request: ExecuteRequest,
  ready: PreparedExecution,
): Promise<SourceOutcome> {
  const { action, environment, input } = ready.prepared;
  const onPage = request.onPage;
  if (action.direction !== 'source') throw new TypeError(`${ready.runner.key} ${action.key} is not a source`);
  if (typeof onPage !== 'function') {
    throw new TypeError(
      `${ready.runner.key} ${action.key} is a source: execute() needs onPage, the host's acknowledgement of each page`,
    );
  }
  const stream =
    request.stream ??
    streamKey({
      connector: ready.runner.key,
      action: action.key,
      connectionId: ready.connection.id,
      environment,
      input,
    });
  const { kept, run, version } = await resumed(setup, ready, stream);
  const gated = passGate(run, request.approval, setup.clock.now());
  await useApproval(gated.needsApproval, request.approval);
  return readPages(setup, request, ready, { run: gated, stream, version, checkpoint: kept?.checkpoint, onPage });
}
