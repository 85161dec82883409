import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError } from '@plugboard/sdk';
import {
  type Clock,
  type CredentialStore,
  type IdempotencyDecision,
  type IdempotencyRecord,
  recordAfterDecision,
  recordsEqual,
  type StoredTokens,
  type Stores,
  systemClock,
} from '@plugboard/sdk/host';

/** The executor's stores as files in a folder (the CLI's): they survive a crash and are written atomically. */

/** A file name for any key: the key's hash, so keys may hold any character and any length. */
function fileFor(folder: string, key: string): string {
  return join(folder, `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`);
}

function temporaryName(file: string): string {
  return `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Writes a whole file and flushes it to disk before returning its temporary name. */
async function writeDurably(file: string, text: string, mode?: number): Promise<string> {
  const temporary = temporaryName(file);
  const handle = await open(temporary, 'w', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temporary;
}

/** Makes a rename or a link in a folder durable. Some file systems cannot sync a folder: that is fine. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort
  }
}

/** Replaces a file atomically: readers see the old whole file or the new whole file. */
async function replaceFile(file: string, text: string, mode?: number): Promise<void> {
  const temporary = await writeDurably(file, text, mode);
  try {
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
}

/** Creates a file only when none exists, whole or not at all. Returns false when it existed. */
async function createFileOnce(file: string, text: string): Promise<boolean> {
  const temporary = await writeDurably(file, text);
  try {
    await link(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
}

/** A store file's text: the key it is kept under, the value, and when it was saved. */
function recordText(key: string, value: unknown, clock: Clock): string {
  return `${JSON.stringify({ key, value, savedAt: new Date(clock.now()).toISOString() })}\n`;
}

async function readJson(file: string): Promise<{ key: string; value: unknown } | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as { key: string; value: unknown };
  } catch (error) {
    throw new Error(`store file ${file} is not valid JSON: ${(error as Error).message}`);
  }
}

async function removeFile(file: string): Promise<void> {
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/** A lock left by a process that died while deciding is broken after this long; a decision takes milliseconds. */
const STALE_LOCK_MS = 30_000;

/**
 * Takes a lock file (created exclusively) for the time of one write that reads first; a lock left
 * by a process that died is broken once. Returns the release, or undefined while another holds it.
 */
async function tryLock(file: string): Promise<(() => Promise<void>) | undefined> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.close();
      return () => removeFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const since = await stat(file).then(
        (found) => Date.now() - found.mtimeMs,
        () => STALE_LOCK_MS,
      );
      if (attempt > 0 || since < STALE_LOCK_MS) return undefined;
      await removeFile(file);
    }
  }
}

/** The lock of one operator's decision, so two deciding on one key at once do not lose either decision. */
async function lockFile(file: string, subject: string): Promise<() => Promise<void>> {
  const unlock = await tryLock(file);
  if (unlock) return unlock;
  throw new ConflictError(`another decision on ${subject} is being recorded; look at the key again, then decide`, {
    state: 'idempotency_deciding',
    retryable: true,
  });
}

/**
 * Both stores as files under `dir` (`checkpoints/` and `idempotency/`, one JSON file per
 * stream or key; `decisions/`, the operators' decisions on a key, one JSON file per key). Every write goes to a temporary file that is flushed and then renamed
 * (or, for a claim, hard-linked, which fails when the key exists), so a crash never leaves
 * a half-written record and two processes never both claim one key.
 * `savedAt` in each file is `options.clock`'s time (default the system clock).
 */
export function fileStore(dir: string, options: { clock?: Clock } = {}): Stores {
  const clock = options.clock ?? systemClock;
  const checkpointDir = join(dir, 'checkpoints');
  const keyDir = join(dir, 'idempotency');
  const decisionDir = join(dir, 'decisions');
  const ready = new Map<string, Promise<unknown>>();
  const folder = (path: string) => {
    let made = ready.get(path);
    if (!made) {
      made = mkdir(path, { recursive: true });
      ready.set(path, made);
    }
    return made;
  };
  const record = (key: string, value: unknown) => recordText(key, value, clock);
  const recordOf = async (key: string) =>
    (await readJson(fileFor(keyDir, key)))?.value as IdempotencyRecord | undefined;
  const decisionsOf = async (key: string) =>
    ((await readJson(fileFor(decisionDir, key)))?.value as IdempotencyDecision[] | undefined) ?? [];

  return {
    checkpoints: {
      async get(stream) {
        return (await readJson(fileFor(checkpointDir, stream)))?.value;
      },
      async commit(stream, checkpoint) {
        await folder(checkpointDir);
        await replaceFile(fileFor(checkpointDir, stream), record(stream, checkpoint ?? null));
        await syncFolder(checkpointDir);
      },
      async clear(stream) {
        await removeFile(fileFor(checkpointDir, stream));
      },
    },
    idempotency: {
      async get(key) {
        return recordOf(key);
      },
      async claim(key, running) {
        await folder(keyDir);
        const file = fileFor(keyDir, key);
        if (await createFileOnce(file, record(key, running))) {
          await syncFolder(keyDir);
          return undefined;
        }
        const existing = await readJson(file);
        // Released between our link and our read: try once more.
        if (existing === undefined)
          return (await createFileOnce(file, record(key, running)))
            ? undefined
            : ((await readJson(file))?.value as IdempotencyRecord);
        return existing.value as IdempotencyRecord;
      },
      async settle(key, outcome) {
        await folder(keyDir);
        await replaceFile(fileFor(keyDir, key), record(key, outcome));
        await syncFolder(keyDir);
      },
      async release(key) {
        await removeFile(fileFor(keyDir, key));
      },
      async inspect(key) {
        const [found, decisions] = await Promise.all([recordOf(key), decisionsOf(key)]);
        return { key, ...(found ? { record: found } : {}), decisions };
      },
      async decide(key, decision, result) {
        await folder(decisionDir);
        const decisionFile = fileFor(decisionDir, key);
        const unlock = await lockFile(`${decisionFile}.lock`, `idempotency key ${JSON.stringify(key)}`);
        try {
          const found = await recordOf(key);
          if (!recordsEqual(found, decision.before)) return { applied: false, ...(found ? { record: found } : {}) };
          // The decision is kept first: a crash before the record changes leaves a decision to apply again, never an unexplained change.
          await replaceFile(decisionFile, record(key, [...(await decisionsOf(key)), decision]));
          await syncFolder(decisionDir);
          const after = recordAfterDecision(decision, result);
          if (after) await replaceFile(fileFor(keyDir, key), record(key, after));
          else await removeFile(fileFor(keyDir, key));
          await syncFolder(keyDir);
          return { applied: true, ...(after ? { record: after } : {}) };
        } finally {
          await unlock();
        }
      },
    },
  };
}

/**
 * A `CredentialStore` as files under `dir/credentials/` (a folder only its owner may open, one
 * file per connection that only its owner may read, named by the connection id's hash). A write
 * goes to a temporary file that is flushed and renamed, so a crash never leaves half a token
 * set; compare-and-set holds a lock file while it reads and writes, so of two processes that
 * refreshed at once one wins and the other reads again. `savedAt` is `options.clock`'s time.
 */
export function fileCredentialStore(dir: string, options: { clock?: Clock } = {}): CredentialStore {
  const clock = options.clock ?? systemClock;
  const folder = join(dir, 'credentials');
  let made: Promise<unknown> | undefined;
  const read = async (connectionId: string) =>
    (await readJson(fileFor(folder, connectionId)))?.value as StoredTokens | undefined;
  return {
    read,
    async compareAndSet(connectionId, expected, next) {
      made ??= mkdir(folder, { recursive: true, mode: 0o700 });
      await made;
      const file = fileFor(folder, connectionId);
      const unlock = await tryLock(`${file}.lock`);
      // Another writer is between its read and its write: whatever it writes, this one's read is stale.
      if (!unlock) return false;
      try {
        const found = await read(connectionId);
        if (found?.version !== expected?.version) return false;
        const stored: StoredTokens = { version: (found?.version ?? 0) + 1, tokens: next };
        await replaceFile(file, recordText(connectionId, stored, clock), 0o600);
        await syncFolder(folder);
        return true;
      } finally {
        await unlock();
      }
    },
  };
}
