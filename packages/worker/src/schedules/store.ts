import type { Environment } from '@plugboard/sdk';
import type { HostConnection } from '@plugboard/sdk/host';
import type pg from 'pg';
import type { Database } from '../database.js';

/**
 * The `plugboard_schedules` table (`0003_schedules.sql`): one row per schedule in the platform's
 * PollTrigger shape, with what a tick needs to submit its run (connection settings, input) and the
 * run the last tick queued.
 */

/** What the last tick did: none yet, queued a run, skipped (the previous run still active), or failed to queue one. */
export type ScheduleState = 'waiting' | 'submitted' | 'skipped' | 'failed';

/** A schedule as the platform's PollTrigger names its fields, with the connector and the last run beside. */
export interface Schedule {
  pollTriggerId: string;
  flowId: string;
  name: string;
  kind: 'poll';
  /** The connector's key; `operationKey` is its source action. */
  connector: string;
  operationKey: string;
  connectionId: string;
  environment: Environment;
  intervalMinutes: number;
  /** `active` while the schedule exists (removing it deletes the row). */
  status: 'active';
  state: ScheduleState;
  stateMessage: string | null;
  lastCheckedAt: string | null;
  nextCheckAt: string | null;
  /** The run the last tick queued, in `plugboard_runs`. */
  lastRunId: string | null;
}

/** A schedule's row with what its ticks submit. */
export interface StoredSchedule extends Schedule {
  connection: HostConnection;
  input: unknown;
}

interface ScheduleRow {
  poll_trigger_id: string;
  flow_id: string;
  name: string;
  connector: string;
  operation_key: string;
  connection_id: string;
  connection: HostConnection;
  input: unknown;
  environment: Environment;
  interval_minutes: number;
  state: ScheduleState;
  state_message: string | null;
  last_checked_at: Date | null;
  next_check_at: Date | null;
  last_run_id: string | null;
}

function toSchedule(row: ScheduleRow): StoredSchedule {
  return {
    pollTriggerId: row.poll_trigger_id,
    flowId: row.flow_id,
    name: row.name,
    kind: 'poll',
    connector: row.connector,
    operationKey: row.operation_key,
    connectionId: row.connection_id,
    environment: row.environment,
    intervalMinutes: row.interval_minutes,
    status: 'active',
    state: row.state,
    stateMessage: row.state_message,
    lastCheckedAt: row.last_checked_at?.toISOString() ?? null,
    nextCheckAt: row.next_check_at?.toISOString() ?? null,
    lastRunId: row.last_run_id,
    connection: row.connection,
    input: row.input,
  };
}

/** Without what only a tick needs: the shape `listSchedules` answers. */
export function publicSchedule({ connection: _connection, input: _input, ...schedule }: StoredSchedule): Schedule {
  return schedule;
}

/** A new schedule, or the same (connector, source, connection, environment, input) with its interval and name replaced. */
export async function upsertSchedule(
  db: Database,
  schedule: Omit<
    StoredSchedule,
    'kind' | 'status' | 'state' | 'stateMessage' | 'lastCheckedAt' | 'nextCheckAt' | 'lastRunId'
  >,
  texts: { connection: string; input: string },
): Promise<StoredSchedule> {
  const { rows } = await db.query<ScheduleRow>(
    `INSERT INTO plugboard_schedules (poll_trigger_id, flow_id, name, connector, operation_key, connection_id,
       connection, input, environment, interval_minutes)
     VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9, $10)
     ON CONFLICT (poll_trigger_id) DO UPDATE SET name = EXCLUDED.name, flow_id = EXCLUDED.flow_id,
       connection = EXCLUDED.connection, interval_minutes = EXCLUDED.interval_minutes, updated_at = now()
     RETURNING *`,
    [
      schedule.pollTriggerId,
      schedule.flowId,
      schedule.name,
      schedule.connector,
      schedule.operationKey,
      schedule.connectionId,
      texts.connection,
      texts.input,
      schedule.environment,
      schedule.intervalMinutes,
    ],
  );
  return toSchedule(rows[0]!);
}

/** Every schedule, oldest first. */
export async function readSchedules(client: pg.ClientBase): Promise<StoredSchedule[]> {
  const { rows } = await client.query<ScheduleRow>(
    'SELECT * FROM plugboard_schedules ORDER BY created_at, poll_trigger_id',
  );
  return rows.map(toSchedule);
}

/** Deletes a schedule; whether there was one. */
export async function deleteSchedule(db: Database, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM plugboard_schedules WHERE poll_trigger_id = $1', [id]);
  return (rowCount ?? 0) > 0;
}

/** The schedule, its row locked until the client's transaction ends (one tick of it at a time). */
export async function lockSchedule(client: pg.PoolClient, id: string): Promise<StoredSchedule | undefined> {
  const { rows } = await client.query<ScheduleRow>(
    'SELECT * FROM plugboard_schedules WHERE poll_trigger_id = $1 FOR UPDATE',
    [id],
  );
  return rows[0] ? toSchedule(rows[0]) : undefined;
}

/** What a tick found and did. */
export interface TickRecord {
  state: ScheduleState;
  stateMessage: string | null;
  checkedAt: Date;
  nextCheckAt: Date;
  /** The run it queued; left as it was when none. */
  runId?: string;
}

export async function recordTick(client: pg.PoolClient, id: string, tick: TickRecord): Promise<void> {
  await client.query(
    `UPDATE plugboard_schedules SET state = $2, state_message = $3, last_checked_at = $4, next_check_at = $5,
       last_run_id = COALESCE($6, last_run_id), updated_at = now() WHERE poll_trigger_id = $1`,
    [id, tick.state, tick.stateMessage, tick.checkedAt, tick.nextCheckAt, tick.runId ?? null],
  );
}

/** When BullMQ will tick it next, as reconciling found it. */
export async function recordNextCheck(db: Database, id: string, next: Date): Promise<void> {
  await db.query('UPDATE plugboard_schedules SET next_check_at = $2 WHERE poll_trigger_id = $1', [id, next]);
}
