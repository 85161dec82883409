import { createHash } from 'node:crypto';
import type { ApprovalDecision, Environment } from '@plugboard/sdk';
import { canonicalJson, type HostConnection } from '@plugboard/sdk/host';

/**
 * What travels through Redis: the queues' names and a job's data. A job names its connection and
 * carries its non-secret settings (rule 10 checked them); the worker resolves the credential.
 */

/** Reads (sources), which a stalled worker may hand to another. */
export const READS_QUEUE = 'plugboard-reads';
/** Destination actions, billable writes among them: never handed to a second worker (`maxStalledCount: 0`). */
export const WRITES_QUEUE = 'plugboard-writes';

export interface RunJob {
  /** The run's row in `plugboard_runs`. */
  runId: string;
  /** The row's `retryCount` when this job was queued: a follower tells this attempt's pages from an earlier one's. */
  attempt: number;
  connector: string;
  action: string;
  connection: HostConnection;
  environment: Environment;
  input: unknown;
  idempotencyKey?: string;
  approval?: ApprovalDecision;
  /** The submitter's trace context (W3C `traceparent`, `tracestate`), when it had one. */
  trace?: Record<string, string>;
}

/** What a worker reports of a run in flight, through BullMQ's job progress. */
export type RunProgress =
  | { attempt: number; type: 'page'; index: number; records: unknown[] }
  | { attempt: number; type: 'progress'; label?: string; done?: number; total?: number };

function digest(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, 40);
}

/**
 * The run's id, which is also its job's: from the idempotency key when given (with what it runs on,
 * so one key on two connections is two runs), else from connector, action, connection and input.
 * The same run submitted again gets the same id, and is not queued twice.
 */
export function runId(run: {
  connector: string;
  action: string;
  connectionId: string;
  input: unknown;
  idempotencyKey?: string | undefined;
}): string {
  const { connector, action, connectionId } = run;
  if (run.idempotencyKey !== undefined)
    return `key-${digest({ connector, action, connectionId, idempotencyKey: run.idempotencyKey })}`;
  return `run-${digest({ connector, action, connectionId, input: run.input })}`;
}
