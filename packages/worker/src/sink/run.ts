import { InvalidInputError } from '@plugboard/sdk';
import {
  type CheckpointStore,
  checkpointToStore,
  type ExecuteRequest,
  type ExecutorSetup,
  type LocalRunner,
  type PreparedExecution,
  prepareExecution,
  runSource,
  type SourceOutcome,
  streamKey,
} from '@plugboard/sdk/host';
import { SinkCheckpointMovedError } from './errors.js';
import type { PostgresSink } from './postgres-sink.js';
import { writesBehind } from './writes-behind.js';

/**
 * A source run into the exactly-once sink, through the executor's own source entry point
 * (`prepareExecution`, then `runSource`): every page the executor hands over is written with
 * its checkpoint in one transaction, from the checkpoint the run resumed from or the page
 * before. The executor's own commit after the acknowledgement has nothing left to do. A page
 * is acknowledged once the page before it committed, so the provider is asked for the next
 * page while a page commits; the run answers once the last page committed.
 */

export interface SinkRunRequest extends Omit<ExecuteRequest, 'onPage'> {
  /** The record field kept as the row's key. Default: the action's `incremental.tieBreaker`, else `id`. */
  keyField?: string;
}

export interface SinkRunOutcome extends SourceOutcome {
  /** The table the records went to. */
  table: string;
}

/** The declared key of a connector run in this process; `id` for one whose definition is elsewhere (a plugin). */
function declaredKeyField(ready: PreparedExecution): string {
  const connector = (ready.runner as Partial<LocalRunner>).connector;
  const action = connector?.actions.find((each) => each.key === ready.prepared.action.key);
  const incremental = action && 'incremental' in action ? action.incremental : undefined;
  return incremental?.tieBreaker ?? 'id';
}

/** The stream's checkpoint as the sink reads it, remembered as the first page's start; committing is the sink's. */
function sinkCheckpoints(
  setup: ExecutorSetup,
  sink: PostgresSink,
  started: (stored: unknown) => void,
): CheckpointStore {
  return {
    async get(stream) {
      const stored = await sink.checkpoint(stream);
      started(stored);
      return stored;
    },
    // Already moved with the page, in its transaction.
    async commit() {},
    clear: (stream) => setup.stores.checkpoints.clear(stream),
  };
}

/**
 * Runs a source into the sink. A page found already written (its starting checkpoint moved on,
 * by another run of the stream) stops the run with `SinkCheckpointMovedError`; nothing of it is written.
 */
export async function runSourceIntoSink(
  setup: ExecutorSetup,
  sink: PostgresSink,
  request: SinkRunRequest,
): Promise<SinkRunOutcome> {
  const { keyField, ...execute } = request;
  if (keyField !== undefined && (typeof keyField !== 'string' || keyField === ''))
    throw new InvalidInputError('PostgreSQL sink', [{ path: 'keyField', message: 'must be a non-empty string' }]);
  const ready = await prepareExecution(setup, execute);
  const { prepared } = ready;
  const stream =
    execute.stream ??
    streamKey({
      connector: ready.runner.key,
      action: prepared.action.key,
      connectionId: ready.connection.id,
      environment: prepared.environment,
      input: prepared.input,
    });
  const table = sink.table(stream);
  const target = { name: stream, keyField: keyField ?? declaredKeyField(ready) };
  const version = prepared.checkpointVersion ?? 1;
  let startedAt: unknown;
  const checkpoints = sinkCheckpoints(setup, sink, (stored) => {
    startedAt = stored;
  });
  const writes = writesBehind();
  const onPage: NonNullable<ExecuteRequest['onPage']> = (page, { index }) =>
    writes.push(async () => {
      const moved = page.checkpoint === undefined ? undefined : checkpointToStore(page.checkpoint, version);
      const outcome = await sink.write(target, { records: page.records, checkpoint: moved }, startedAt);
      if (outcome === 'skipped') throw new SinkCheckpointMovedError(stream, index);
      if (moved !== undefined) startedAt = moved;
    });
  const run = { ...setup, stores: { ...setup.stores, checkpoints } };
  let outcome: SourceOutcome;
  try {
    outcome = await runSource(run, { ...execute, stream, onPage }, ready);
  } catch (error) {
    // The page in flight ends first; its failure, earlier in page order, is the one thrown.
    await writes.settle();
    throw error;
  }
  await writes.settle();
  return { ...outcome, table };
}
