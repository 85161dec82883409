import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../clock.js';
import { NetworkError } from '../errors.js';
import { type LeaseAttempt, type RefreshLease, waitForLease } from './lease.js';
import { watchLock } from './lock-folder-watch.js';

/**
 * The refresh lease of processes on one machine without Redis (CLI commands): a lock file in
 * the state folder, created with O_EXCL so only one process makes it, holding its owner's
 * token and when it was taken. A lock older than `leaseMs` (its owner died) is taken over;
 * only its owner removes it. Waiters learn of its removal by watching the folder
 * (lock-folder-watch.ts). The file is named by a hash: no connection id is written.
 */
export function fileLease(folder: string, clock: Clock, leaseMs: number): RefreshLease {
  return {
    async take(name, settled) {
      await mkdir(folder, { recursive: true });
      const file = `refresh-${createHash('sha256').update(name).digest('hex').slice(0, 32)}.lock`;
      const path = join(folder, file);
      const token = randomUUID();
      // A lock read before its owner wrote it is unreadable: stale only once it stays so for a lease's time.
      let unreadableSince: number | undefined;
      const attempt = async (): Promise<LeaseAttempt> => {
        if (await create(path, JSON.stringify({ token, at: clock.now() }))) return { taken: true };
        const held = await readFile(path, 'utf8').catch(() => undefined);
        const at = held === undefined ? undefined : takenAt(held);
        if (held !== undefined && at === undefined) unreadableSince ??= clock.now();
        // Only the stale lock read is removed: one a quicker process made meanwhile is left.
        if (held !== undefined && clock.now() - (at ?? unreadableSince!) > leaseMs)
          if ((await readFile(path, 'utf8').catch(() => undefined)) === held) await unlink(path).catch(() => undefined);
        return { taken: false, holder: held };
      };
      const taken = await waitForLease({
        clock,
        leaseMs,
        attempt,
        settled,
        unavailable: (heldMs) =>
          new NetworkError(`the token refresh lock file was held by another process for over ${heldMs} ms`, {
            code: 'token_lease_unavailable',
          }),
        listen: async (notify) => watchLock(folder, file, notify),
      });
      if (!taken) return undefined;
      return async () => {
        const held = await readFile(path, 'utf8').catch(() => undefined);
        if (held !== undefined && ownerOf(held) === token) await unlink(path).catch(() => undefined);
      };
    },
  };
}

/** Creates the file with `text` unless it exists. */
async function create(path: string, text: string): Promise<boolean> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(path, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    await file.writeFile(text);
  } finally {
    await file.close();
  }
  return true;
}

function parse(text: string): { token?: unknown; at?: unknown } | undefined {
  try {
    return JSON.parse(text) as { token?: unknown; at?: unknown };
  } catch {
    return undefined;
  }
}

function ownerOf(text: string): unknown {
  return parse(text)?.token;
}

/** When the lock was taken, when it can be read. */
function takenAt(text: string): number | undefined {
  const at = parse(text)?.at;
  return typeof at === 'number' ? at : undefined;
}
