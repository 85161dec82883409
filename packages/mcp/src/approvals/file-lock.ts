import { closeSync, openSync, statSync, unlinkSync } from 'node:fs';
import { setTimeout as wait } from 'node:timers/promises';
import { ConflictError } from '@plugboard/sdk';

/**
 * An exclusive lock file (created with O_EXCL) held for one read-decide-write of an approval, so
 * two processes deciding or using one approval at once take turns and the second sees the first's
 * outcome. A lock left by a process that died mid-write is broken after `STALE_MS` of real time.
 */

const STALE_MS = 30_000;
/** How long a caller waits for another's write (a few milliseconds each) before giving up. */
const PATIENCE_MS = 5_000;
const STEP_MS = 2;

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

function tryLock(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  }
}

function stale(file: string): boolean {
  try {
    return Date.now() - statSync(file).mtimeMs > STALE_MS;
  } catch {
    return false; // gone meanwhile: the next attempt takes it
  }
}

/** Runs `work` holding the lock file; `subject` names what is locked in the refusal after waiting too long. */
export async function withLock<T>(file: string, subject: string, work: () => T): Promise<T> {
  const started = Date.now();
  while (!tryLock(file)) {
    if (stale(file)) removeFile(file);
    else if (Date.now() - started > PATIENCE_MS)
      throw new ConflictError(`${subject} is being written by another process; try again`, {
        code: 'approval_busy',
        retryable: true,
      });
    else await wait(STEP_MS);
  }
  try {
    return work();
  } finally {
    removeFile(file);
  }
}
