import { InvalidInputError } from '@plugboard/sdk';
import type pg from 'pg';
import type { ExecutorOptions } from '@plugboard/sdk/host';

/**
 * The receiver's queued mode, as a host asks for it: the worker fleet's Redis and PostgreSQL
 * (named as the worker's `SubmitterOptions` name them) and the connectors the queued runs are
 * checked against. Checked before anything is reached, each problem named by its field and never
 * quoting a URL (it may hold a password).
 */

export interface ReceiverQueueOptions {
  /** The connectors the queued runs are checked against before they are queued (the workers run their own copies). */
  connectors?: ExecutorOptions['connectors'];
  /** Plugins, as the executor takes them, for the same checks. */
  plugins?: ExecutorOptions['plugins'];
  /** The run queue's Redis: `redis://[USER:PASSWORD@]HOST:PORT[/DB]`. */
  redis: string;
  /** The fleet's PostgreSQL (migrated by `plugboard db migrate`): a URL, or the host's pool (left open). */
  postgres: string | pg.Pool;
}

/** The flow of the schedules receivers register for their poll triggers in queued mode. */
export const TRIGGER_POLLS_FLOW = 'plugboard-triggers';

type Issue = { path: string; message: string };

function urlIssue(value: unknown, path: string, protocols: readonly string[], shape: string): Issue | undefined {
  if (typeof value !== 'string' || !URL.canParse(value)) return { path, message: `is not a URL; give ${shape}` };
  const { protocol } = new URL(value);
  return protocols.includes(protocol)
    ? undefined
    : { path, message: `must be a ${protocols.map((each) => `${each}//`).join(' or ')} URL, not ${protocol}//` };
}

const POSTGRES = ['postgres:', 'postgresql:'];
const POSTGRES_SHAPE = 'postgres://USER:PASSWORD@HOST:PORT/DATABASE';

/** A PostgreSQL URL, or an `InvalidInputError` naming `path`. */
export function checkPostgresUrl(value: string, path: string): void {
  const issue = urlIssue(value, path, POSTGRES, POSTGRES_SHAPE);
  if (issue) throw new InvalidInputError('PostgreSQL', [issue]);
}

/** Refuses a queue whose URLs are not its servers', and what queued mode replaces (`startRun`, `startPoll`). */
export function checkQueueOptions(queue: ReceiverQueueOptions, given: { startRun?: unknown; startPoll?: unknown }) {
  const issues = [
    urlIssue(queue.redis, 'queue.redis', ['redis:', 'rediss:'], 'redis://[USER:PASSWORD@]HOST:PORT[/DB]'),
    typeof queue.postgres === 'object' && queue.postgres !== null
      ? undefined
      : urlIssue(queue.postgres, 'queue.postgres', POSTGRES, POSTGRES_SHAPE),
    given.startRun === undefined
      ? undefined
      : { path: 'startRun', message: 'is left out with queue: the runs go on the run queue' },
    given.startPoll === undefined
      ? undefined
      : { path: 'startPoll', message: "is left out with queue: the polls are the fleet's schedules" },
  ].filter((issue) => issue !== undefined);
  if (issues.length > 0) throw new InvalidInputError('receiver', issues);
}
