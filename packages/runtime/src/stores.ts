import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { IdempotencyRecord, Stores } from '@plugboard/sdk';

/** The executor's stores as files in a folder (the CLI's): they survive a crash and are written atomically. */

function fileFor(folder: string, key: string): string {
  return join(folder, `${createHash('sha256').update(key).digest('hex').slice(0, 40)}.json`);
}

function temporaryName(file: string): string {
  return `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
}

/** Writes a whole file and flushes it to disk before returning its temporary name. */
async function writeDurably(file: string, text: string): Promise<string> {
  const temporary = temporaryName(file);
  const handle = await open(temporary, 'w');
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
async function replaceFile(file: string, text: string): Promise<void> {
  const temporary = await writeDurably(file, text);
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

/**
 * Both stores as files under `dir` (`checkpoints/` and `idempotency/`, one JSON file per
 * stream or key). Every write goes to a temporary file that is flushed and then renamed
 * (or, for a claim, hard-linked, which fails when the key exists), so a crash never leaves
 * a half-written record and two processes never both claim one key.
 */
export function fileStore(dir: string): Stores {
  const checkpointDir = join(dir, 'checkpoints');
  const keyDir = join(dir, 'idempotency');
  const ready = new Map<string, Promise<unknown>>();
  const folder = (path: string) => {
    let made = ready.get(path);
    if (!made) {
      made = mkdir(path, { recursive: true });
      ready.set(path, made);
    }
    return made;
  };
  const record = (key: string, value: unknown) => `${JSON.stringify({ key, value, savedAt: new Date().toISOString() })}\n`;

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
        await unlink(fileFor(checkpointDir, stream)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
      },
    },
    idempotency: {
      async get(key) {
        return (await readJson(fileFor(keyDir, key)))?.value as IdempotencyRecord | undefined;
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
        if (existing === undefined) return (await createFileOnce(file, record(key, running))) ? undefined : ((await readJson(file))?.value as IdempotencyRecord);
        return existing.value as IdempotencyRecord;
      },
      async settle(key, outcome) {
        await folder(keyDir);
        await replaceFile(fileFor(keyDir, key), record(key, outcome));
        await syncFolder(keyDir);
      },
      async release(key) {
        await unlink(fileFor(keyDir, key)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
      },
    },
  };
}
