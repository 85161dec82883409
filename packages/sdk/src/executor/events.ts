import type { Clock } from '../clock.js';
import type { ProgressEvent } from '../context.js';
import type { Environment } from '../definition/action.js';
import type { PreparedExecution } from './outcomes.js';

export interface EventBase {
  connector: string;
  action: string;
  time: string;
}

export type ExecutionEvent =
  | (EventBase & { type: 'started'; environment: Environment; digest?: string; stream?: string; checkpoint?: unknown })
  | (EventBase & { type: 'replayed'; idempotencyKey: string })
  | ({ type: 'progress' } & ProgressEvent)
  | (EventBase & {
      type: 'page';
      index: number;
      records: number;
      totalRecords: number;
      committed: boolean;
      checkpoint?: unknown;
    })
  | (EventBase & { type: 'finished'; pages?: number; records?: number });

/** What every event of a run names: its connector and action, and the clock's time. */
export function eventBase(ready: PreparedExecution, clock: Clock): EventBase {
  return { connector: ready.runner.key, action: ready.prepared.action.key, time: new Date(clock.now()).toISOString() };
}

/** The approval digest, only where an approval is involved. */
export function digestOf(ready: PreparedExecution): { digest?: string } {
  return ready.needsApproval ? { digest: ready.digest } : {};
}
