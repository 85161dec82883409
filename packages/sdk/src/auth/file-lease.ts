import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { type Clock, sleep } from '../clock.js';
import { NetworkError } from '../errors.js';
import { LEASE_POLL_MS, patience, type RefreshLease } from './lease.js';

/**
 * The refresh lease of processes on one machine without Redis (CLI commands): a lock file in
 * the state folder, created with O_EXCL so only one process makes it, holding its owner's
 * token and when it was taken. A lock older than `leaseMs` (its owner died) is taken over;
 * only its owner removes it. The file is named by a hash: no connection id is written.
 */
export function fileLease(folder: string, clock: Clock, leaseMs: number): RefreshLease {
  return {
    async take(name, settled) {
      await mkdir(folder, { recursive: true });
      const path = join(folder, `refresh-${createHash('sha256').update(name).digest('hex').slice(0, 32)}.lock`);
      const token = randomUUID();
      const waiting = patience(clock, leaseMs);
      // A lock read before its owner wrote it is unreadable: stale only once it stays so for a lease's time.
      let unreadableSince: number | undefined;
      for (;;) {
        if (await create(path, JSON.stringify({ token, at: clock.now() }))) break;
        const held = await readFile(path, 'utf8').catch(() => undefined);
        const at = held === undefined ? undefined : takenAt(held);
        if (held !== undefined && at === undefined) unreadableSince ??= clock.now();
        if (held !== undefined && clock.now() - (at ?? unreadableSince!) > leaseMs) {
          // Only the stale lock read is removed: one a quicker process made meanwhile is left.
          if ((await readFile(path, 'utf8').catch(() => undefined)) === held) await unlink(path).catch(() => undefined);
          continue;
        }
        if (!waiting())
          throw new NetworkError(`the token refresh lock file was held by another process for over ${2 * leaseMs} ms`, {
            code: 'token_lease_unavailable',
          });
        await sleep(clock, LEASE_POLL_MS);
        if (await settled?.()) return undefined;
      }
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
