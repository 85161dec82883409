import { createHash } from 'node:crypto';
import { type Environment, InvalidInputError } from '@plugboard/sdk';
import { canonicalJson, type ExecutorOptions, type HostConnection } from '@plugboard/sdk/host';
import type pg from 'pg';
import { connect, database, release } from '../database.js';
import { checkedKey, jsonText } from '../limits.js';
import { assertMigrated } from '../migrations.js';
import { queueRedis, reachRedis } from '../queue/redis.js';
import { checkRun } from '../queue/validation.js';
import { reconcile } from './reconcile.js';
import { deleteSchedule, publicSchedule, readSchedules, type Schedule, upsertSchedule } from './store.js';

/**
 * Adding, listing and removing schedules. A schedule is checked as `submitRun` checks a run, with
 * the same typed errors, before anything is kept; then its row, then BullMQ reconciled with it.
 */

/** The longest interval: a year. */
export const MAX_INTERVAL_MINUTES = 525_600;

export interface ScheduleTarget {
  /** The queue's Redis: `redis://[USER:PASSWORD@]HOST:PORT[/DB]`. */
  redis: string;
  /** The schedules' PostgreSQL: a URL, or the host's pool (left open). */
  postgres: string | pg.Pool;
}

export interface AddScheduleOptions extends ScheduleTarget {
  /** The connectors the run is checked against, as `submitRun` takes them. */
  connectors?: ExecutorOptions['connectors'];
  plugins?: ExecutorOptions['plugins'];
  connector: string;
  /** A source action of the connector (a schedule never runs a write). */
  source: string;
  input?: unknown;
  /** The connection each tick's run names, with its non-secret settings; never a credential. */
  connection: HostConnection;
  /** Default `sandbox`. */
  environment?: Environment;
  /** A whole number of minutes, 1 to 525,600. */
  intervalMinutes: number;
  /** Default `<connector> <source> every <n>m`. */
  name?: string;
  /** The platform flow the schedule belongs to; default the connector's key. */
  flowId?: string;
}

function refuse(path: string, message: string): never {
  throw new InvalidInputError('schedule', [{ path, message }]);
}

/** The schedule's id: one per connector, source, connection, environment and input. */
function scheduleId(options: AddScheduleOptions, environment: Environment, input: unknown): string {
  const { connector, source } = options;
  const stream = { connector, source, connectionId: options.connection.id, environment, input };
  return `poll-${createHash('sha256').update(canonicalJson(stream)).digest('hex').slice(0, 40)}`;
}

async function withDatabase<T>(
  target: Pick<ScheduleTarget, 'postgres'>,
  work: (pool: pg.Pool) => Promise<T>,
): Promise<T> {
  const connection = connect(target.postgres, 'postgres');
  try {
    await assertMigrated(connection.pool);
    return await work(connection.pool);
  } finally {
    await release(connection);
  }
}

/**
 * Checks the schedule as `submitRun` checks a run (connector and source known, connection settings
 * under rule 10, input) and its interval; nothing is kept when that fails. Then keeps it (the same
 * stream again replaces its interval and name) and reconciles BullMQ with PostgreSQL.
 */
export async function addSchedule(options: AddScheduleOptions): Promise<Schedule> {
  const { intervalMinutes } = options;
  if (!Number.isInteger(intervalMinutes) || intervalMinutes < 1 || intervalMinutes > MAX_INTERVAL_MINUTES)
    refuse('intervalMinutes', `must be a whole number of minutes from 1 to ${MAX_INTERVAL_MINUTES}`);
  const environment = options.environment ?? 'sandbox';
  const input = options.input ?? {};
  const direction = await checkRun({ ...options, action: options.source, input, environment });
  if (direction !== 'source') refuse('source', 'is a destination; a schedule runs a source');
  const name = options.name ?? `${options.connector} ${options.source} every ${intervalMinutes}m`;
  checkedKey(name, 'schedule', 'name');
  const texts = {
    connection: jsonText(options.connection, 'schedule', 'connection'),
    input: jsonText(input, 'schedule', 'input'),
  };
  const redis = queueRedis(options.redis);
  await reachRedis(redis, { workers: false });
  return withDatabase(options, async (pool) => {
    const kept = await upsertSchedule(
      database(pool),
      {
        pollTriggerId: scheduleId(options, environment, input),
        flowId: options.flowId ?? options.connector,
        name,
        connector: options.connector,
        operationKey: options.source,
        connectionId: options.connection.id,
        connection: options.connection,
        input,
        environment,
        intervalMinutes,
      },
      texts,
    );
    await reconcile(redis, pool);
    // As reconciling left it: with BullMQ's next tick.
    const all = await database(pool).transaction((client) => readSchedules(client));
    return publicSchedule(all.find((schedule) => schedule.pollTriggerId === kept.pollTriggerId) ?? kept);
  });
}

/** Every schedule, oldest first, as PollTriggers (with the connector and the last run); only PostgreSQL is read. */
export function listSchedules(target: Pick<ScheduleTarget, 'postgres'>): Promise<Schedule[]> {
  return withDatabase(target, async (pool) =>
    (await database(pool).transaction((client) => readSchedules(client))).map(publicSchedule),
  );
}

/** Removes a schedule and its BullMQ scheduler; whether there was one. */
export async function removeSchedule(target: ScheduleTarget, id: string): Promise<boolean> {
  checkedKey(id, 'schedule', 'id');
  const redis = queueRedis(target.redis);
  await reachRedis(redis, { workers: false });
  return withDatabase(target, async (pool) => {
    const removed = await deleteSchedule(database(pool), id);
    await reconcile(redis, pool);
    return removed;
  });
}
