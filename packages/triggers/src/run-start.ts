import { InvalidInputError } from '@plugboard/sdk';
import { createExecutor, type ExecutorOptions } from '@plugboard/sdk/host';
import type { TriggerRunConnection, TriggerRunSettings } from './config-parts.js';

/**
 * A run started by an accepted delivery. The receiver hands each one to a `StartRun`; the
 * embedded one (`executorRunStarter`) runs the trigger's action through the SDK's executor, the
 * one way every caller runs an action, with the delivery's records as its input: `{ records }`.
 */

export interface DeliveryRun {
  /** The run's id, as the delivery's answer and receipt give it; a destination's idempotency key. */
  executionId: string;
  deliveryId: string;
  triggerId: string;
  eventId: string;
  environment: 'sandbox' | 'production';
  run: TriggerRunSettings;
  records: Record<string, unknown>[];
  /** Aborted when the receiver stops waiting for its runs. */
  signal: AbortSignal;
}

/** How a run ended: the records a source read, or 1 for a destination's result; `queued` when it was handed to the run queue instead. */
export interface RunEnd {
  records: number;
  queued?: boolean;
}

/** A run's records as its log line says them: `1 record`, `2 records`. */
export const recordsSaid = (records: number) => `${records} record${records === 1 ? '' : 's'}`;

export type StartRun = (run: DeliveryRun) => Promise<RunEnd>;

/** The host's options a starter runs actions with: all but the connection, which the trigger names. */
export type ExecutorHost = Omit<ExecutorOptions, 'resolveConnection'>;

/** A new executor on the host's connectors, stores and transport whose connection is the one named. */
export function executorFor(host: ExecutorHost, connection: TriggerRunConnection) {
  return createExecutor({ ...host, resolveConnection: (id) => ({ ...connection, id }) });
}

/** A delivery's run as the executor takes it: the records as input, the execution id as idempotency key. */
export function deliveryRequest(delivery: DeliveryRun) {
  const { connector, action, connection } = delivery.run;
  return {
    connectorKey: connector,
    action,
    connectionId: connection.id,
    environment: delivery.environment,
    input: { records: delivery.records },
    idempotencyKey: delivery.executionId,
    signal: delivery.signal,
  };
}

/**
 * Prepares the run (its input checked as for any run) and refuses an action that is not a
 * destination: a delivery's records are written somewhere; a source is read by a poll, not
 * handed records.
 */
export async function prepareDestination(
  executor: ReturnType<typeof createExecutor>,
  request: ReturnType<typeof deliveryRequest>,
): Promise<void> {
  const ready = await executor.prepare(request);
  if (ready.prepared.action.direction === 'source')
    throw new InvalidInputError('delivery', [
      {
        path: 'run.action',
        message: `${request.action} is a source: a delivery's run writes its records; poll a source`,
      },
    ]);
}

/**
 * Runs each delivery's action through a new executor on the host's connectors, stores and
 * transport, whose connection is the one the trigger names (as a worker runs a queued job). The
 * execution id is the idempotency key: a destination restarted after a crash never writes twice.
 */
export function executorRunStarter(host: ExecutorHost): StartRun {
  return async (delivery) => {
    const executor = executorFor(host, delivery.run.connection);
    const request = deliveryRequest(delivery);
    await prepareDestination(executor, request);
    await executor.execute(request);
    return { records: 1 };
  };
}
