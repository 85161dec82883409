import { createHash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
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

/**
 * The executor's stores as files in a folder (the CLI's): they survive a crash and are written
 * atomically. The file calls are synchronous: a record is a few hundred bytes written a few times
 * a run, and a compare-and-set's ten calls through the thread pool took 2.4 ms against 1.4 ms
 * made directly (a credential written back after a refresh, while a fleet's calls wait for it).
 */

/** A file name for any key: the key's hash, so keys may hold any character and any length. */
function fileFor(folder: string, key: string): string {
  return join(folder, `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`);
}

function temporaryName(file: string): string {
  return `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Writes a whole file and flushes it to disk before returning its temporary name. */
function writeDurably(file: string, text: string, mode?: number): string {
  const temporary = temporaryName(file);
  const handle = openSync(temporary, 'w', mode);
  try {
    writeFileSync(handle, text, 'utf8');
    fsyncSync(handle);
  } finally {
    closeSync(handle);
  }
  return temporary;
}

/** Makes a rename or a link in a folder durable. Some file systems cannot sync a folder: that is fine. */
function syncFolder(folder: string): void {
  try {
    const handle = openSync(folder, 'r');
    try {
      fsyncSync(handle);
    } finally {
      closeSync(handle);
    }
  } catch {
    // best effort
  }
}

/** Replaces a file atomically: readers see the old whole file or the new whole file. */
function replaceFile(file: string, text: string, mode?: number): void {
  const temporary = writeDurably(file, text, mode);
  try {
    renameSync(temporary, file);
  } catch (error) {
    removeFile(temporary);
    throw error;
  }
}

/** Creates a file only when none exists, whole or not at all. Returns false when it existed. */
function createFileOnce(file: string, text: string): boolean {
  const temporary = writeDurably(file, text);
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    removeFile(temporary);
  }
}

/** A store file's text: the key it is kept under, the value, and when it was saved. */
function recordText(key: string, value: unknown, clock: Clock): string {
  return `${JSON.stringify({ key, value, savedAt: new Date(clock.now()).toISOString() })}\n`;
}

function readJson(file: string): { key: string; value: unknown } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
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

function removeFile(file: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** A lock left by a process that died while deciding is broken after this long; a decision takes milliseconds. */
const STALE_LOCK_MS = 30_000;

/**
 * Takes a lock file (created exclusively) for the time of one write that reads first; a lock left
 * by a process that died is broken once. Returns the release, or undefined while another holds it.
 */
function tryLock(file: string): (() => void) | undefined {
  for (let attempt = 0; ; attempt += 1) {
    try {
      closeSync(openSync(file, 'wx', 0o600));
      return () => removeFile(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      let since = STALE_LOCK_MS;
      try {
        since = Date.now() - statSync(file).mtimeMs;
      } catch {
        // Gone meanwhile: as good as stale.
      }
      if (attempt > 0 || since < STALE_LOCK_MS) return undefined;
      removeFile(file);
    }
  }
}

/** The lock of one operator's decision, so two deciding on one key at once do not lose either decision. */
function lockFile(file: string, subject: string): () => void {
  const unlock = tryLock(file);
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
  const made = new Set<string>();
  const folder = (path: string) => {
    if (made.has(path)) return;
    mkdirSync(path, { recursive: true });
    made.add(path);
  };
  const record = (key: string, value: unknown) => recordText(key, value, clock);
  const recordOf = (key: string) => readJson(fileFor(keyDir, key))?.value as IdempotencyRecord | undefined;
  const decisionsOf = (key: string) =>
    (readJson(fileFor(decisionDir, key))?.value as IdempotencyDecision[] | undefined) ?? [];

  return {
    checkpoints: {
      async get(stream) {
        return readJson(fileFor(checkpointDir, stream))?.value;
      },
      async commit(stream, checkpoint) {
        folder(checkpointDir);
        replaceFile(fileFor(checkpointDir, stream), record(stream, checkpoint ?? null));
        syncFolder(checkpointDir);
      },
      async clear(stream) {
        removeFile(fileFor(checkpointDir, stream));
      },
    },
    idempotency: {
      async get(key) {
        return recordOf(key);
      },
      async claim(key, running) {
        folder(keyDir);
        const file = fileFor(keyDir, key);
        if (createFileOnce(file, record(key, running))) {
          syncFolder(keyDir);
          return undefined;
        }
        const existing = readJson(file);
        // Released between our link and our read: try once more.
        if (existing === undefined)
          return createFileOnce(file, record(key, running)) ? undefined : (readJson(file)?.value as IdempotencyRecord);
        return existing.value as IdempotencyRecord;
      },
      async settle(key, outcome) {
        folder(keyDir);
        replaceFile(fileFor(keyDir, key), record(key, outcome));
        syncFolder(keyDir);
      },
      async release(key) {
        removeFile(fileFor(keyDir, key));
      },
      async inspect(key) {
        const found = recordOf(key);
        return { key, ...(found ? { record: found } : {}), decisions: decisionsOf(key) };
      },
      async decide(key, decision, result) {
        folder(decisionDir);
        const decisionFile = fileFor(decisionDir, key);
        const unlock = lockFile(`${decisionFile}.lock`, `idempotency key ${JSON.stringify(key)}`);
        try {
          const found = recordOf(key);
          if (!recordsEqual(found, decision.before)) return { applied: false, ...(found ? { record: found } : {}) };
          // The decision is kept first: a crash before the record changes leaves a decision to apply again, never an unexplained change.
          replaceFile(decisionFile, record(key, [...decisionsOf(key), decision]));
          syncFolder(decisionDir);
          const after = recordAfterDecision(decision, result);
          if (after) replaceFile(fileFor(keyDir, key), record(key, after));
          else removeFile(fileFor(keyDir, key));
          syncFolder(keyDir);
          return { applied: true, ...(after ? { record: after } : {}) };
        } finally {
          unlock();
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
  let made = false;
  const read = (connectionId: string) => readJson(fileFor(folder, connectionId))?.value as StoredTokens | undefined;
  return {
    async read(connectionId) {
      return read(connectionId);
    },
    async compareAndSet(connectionId, expected, next) {
      if (!made) mkdirSync(folder, { recursive: true, mode: 0o700 });
      made = true;
      const file = fileFor(folder, connectionId);
      const unlock = tryLock(`${file}.lock`);
      // Another writer is between its read and its write: whatever it writes, this one's read is stale.
      if (!unlock) return false;
      try {
        const found = read(connectionId);
        if (found?.version !== expected?.version) return false;
        const stored: StoredTokens = { version: (found?.version ?? 0) + 1, tokens: next };
        replaceFile(file, recordText(connectionId, stored, clock), 0o600);
        syncFolder(folder);
        return true;
      } finally {
        unlock();
      }
    },
  };
}
