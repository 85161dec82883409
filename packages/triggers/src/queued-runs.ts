import { ConnectorError } from '@plugboard/sdk';
import { createExecutor, type ExecutorOptions } from '@plugboard/sdk/host';
import type { Submitter } from '@plugboard/worker';
import { RunNotQueuedError } from './errors.js';
import { deliveryRequest, prepareDestination, type StartRun } from './run-start.js';

/**
 * The runs of accepted deliveries handed to the worker fleet's run queue: each checked as the
 * embedded starter checks it (a destination, its input), then submitted under the delivery's
 * execution id, which is both the run's id and its idempotency key; the same delivery queued
 * twice (a restart after a crash between claim and queue) is one run. The job carries the
 * connection's non-secret settings and the records; a worker resolves the credential.
 */

/** What queued runs are checked against, as the worker's `RunSubmission` takes them. */
export type QueueChecks = Pick<ExecutorOptions, 'connectors' | 'plugins'>;

/** Redis or PostgreSQL could not be reached: nothing was queued, and a restart can try again. */
const UNREACHABLE = new Set(['queue_unavailable', 'database_unavailable']);

export function queuedRunStarter(submitter: Submitter, checks: QueueChecks): StartRun {
  const executor = (connection: { id: string }) =>
    createExecutor({
      ...checks,
      resolveConnection: (id) => ({ ...connection, id }),
      resolveCredential: () => undefined,
    });
  return async (delivery) => {
    const { connector, action, connection } = delivery.run;
    await prepareDestination(executor(connection), deliveryRequest(delivery));
    try {
      await submitter.submit({
        ...checks,
        connector,
        action,
        connection,
        environment: delivery.environment,
        input: { records: delivery.records },
        idempotencyKey: delivery.executionId,
        runId: delivery.executionId,
      });
    } catch (error) {
      if (error instanceof ConnectorError && UNREACHABLE.has(error.code))
        throw new RunNotQueuedError(delivery.executionId, error);
      throw error;
    }
    return { records: delivery.records.length, queued: true };
  };
}
