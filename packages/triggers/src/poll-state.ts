import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Each poll trigger's state in the receiver's state folder, `polls/<digest of its id>.json`: the
 * platform's PollTrigger fields the receiver keeps (`state`, `stateMessage`, `lastCheckedAt`,
 * `nextCheckAt`) with what it was configured with and what its last poll did. A file is written
 * whole and flushed under a temporary name, then renamed into place: a reader (or a restart)
 * never sees half of one. A state holds an error's code, never its message, and no secret.
 */

/** The folder of the poll states, under the state folder. */
export const POLLS_FOLDER = 'polls';

/** A poll trigger as the receiver keeps it: the platform's PollTrigger fields it knows, and its last poll. */
export interface PollTriggerState {
  pollTriggerId: string;
  kind: 'poll';
  /** As configured: only `active` polls. */
  status: string;
  /** `active`; `paused` when not polled (status not active, or no run starter); `failing` after a failed poll, until one succeeds. */
  state: 'active' | 'paused' | 'failing';
  /** Why it is paused or failing (`failing` names the error's code), or that a check was skipped; null otherwise. */
  stateMessage: string | null;
  intervalMinutes: number;
  environment: 'sandbox' | 'production';
  connectionId: string;
  /** The connector and the source action read, `connector/action`. */
  operationKey: string;
  /** When the last poll that ended (succeeded or failed) started, ISO 8601 on the receiver's clock. */
  lastCheckedAt: string | null;
  /** When the next poll is due; null when paused. */
  nextCheckAt: string | null;
  lastExecutionId: string | null;
  /** Records the last successful poll read. */
  lastRecordCount: number | null;
  /** Checks skipped because a poll of the same stream was still running, and the last one's due time. */
  skippedChecks: number;
  lastSkippedAt: string | null;
}

export interface PollStateStore {
  read(pollTriggerId: string): Promise<PollTriggerState | undefined>;
  write(state: PollTriggerState): Promise<void>;
}

const fileName = (pollTriggerId: string) =>
  `${createHash('sha256').update(pollTriggerId).digest('hex').slice(0, 32)}.json`;

/** A kept state, or undefined when there is none or it is not one (a poll then falls due at once: never lost). */
async function readState(file: string): Promise<PollTriggerState | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const state = JSON.parse(text) as PollTriggerState;
    return typeof state === 'object' && state !== null && typeof state.pollTriggerId === 'string' ? state : undefined;
  } catch {
    return undefined;
  }
}

export function pollStateStore(stateDir: string): PollStateStore {
  const folder = join(stateDir, POLLS_FOLDER);
  let made: Promise<unknown> | undefined;
  return {
    read: (pollTriggerId) => readState(join(folder, fileName(pollTriggerId))),
    async write(state) {
      await (made ??= mkdir(folder, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
        made = undefined;
        throw error;
      }));
      const target = join(folder, fileName(state.pollTriggerId));
      const temporary = `${target}.${randomUUID()}.tmp`;
      const handle = await open(temporary, 'wx', 0o600);
      try {
        await handle.writeFile(JSON.stringify(state), 'utf8');
        await handle.datasync();
      } finally {
        await handle.close();
      }
      await rename(temporary, target).catch(async (error: unknown) => {
        await unlink(temporary).catch(() => undefined);
        throw error;
      });
    },
  };
}

/** The poll states a receiver kept in `stateDir`, by pollTriggerId; none when it kept none. */
export async function listPolls(stateDir: string): Promise<PollTriggerState[]> {
  const folder = join(stateDir, POLLS_FOLDER);
  const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
  const states: PollTriggerState[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.json'))) {
    const state = await readState(join(folder, name));
    if (state) states.push(state);
  }
  return states.sort((a, b) => a.pollTriggerId.localeCompare(b.pollTriggerId));
}
