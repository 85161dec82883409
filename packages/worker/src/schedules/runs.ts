import type pg from 'pg';
import type { RunStatus } from '../queue/runs.js';

/** The status of a run a tick queued; undefined when its row is gone. */
export async function readRunStatus(client: pg.ClientBase, id: string): Promise<RunStatus | undefined> {
  const { rows } = await client.query<{ status: RunStatus }>('SELECT status FROM plugboard_runs WHERE id = $1', [id]);
  return rows[0]?.status;
}
