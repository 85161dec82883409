import { writeSync } from 'node:fs';
import { type FileHandle, open, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * An append-only file of lines, as the event log and the receipts keep it: opened by scanning
 * every complete line, or only its tail (either way a last line a crash tore is cut off, so the
 * next append starts a line of its own), appended to in whole batches flushed to disk, cut back
 * to an earlier size, read back at an offset, and rewritten whole (a new file flushed, renamed
 * over the old one, the folder flushed) to drop what is no longer kept.
 */

const CHUNK_BYTES = 1024 * 1024;
/** Bytes read at a time, backwards, to find the end of the last complete line. */
const TAIL_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

export interface LogFile {
  /** Bytes of complete lines in the file: where the next append goes. */
  readonly size: number;
  /** Appends complete lines (each ending in a newline) and flushes them to disk. */
  append(text: string): Promise<void>;
  /** Drops what was appended after `size` (a size the log had), flushed to disk. */
  cutTo(size: number): Promise<void>;
  /** The line of `length` bytes at `offset`. */
  read(offset: number, length: number): Promise<Buffer>;
  /**
   * Rewrites the log with the lines `keep` gives (a new file flushed, renamed over the old one,
   * the folder flushed); on failure the log stays as it was.
   */
  rewrite(keep: Keep): Promise<void>;
  close(): Promise<void>;
}

/** Gives the line to keep (itself or a replacement) or undefined to drop it, told where it would go. */
export type Keep = (line: Buffer, offset: number, newOffset: number) => Buffer | undefined;

/**
 * Called with each complete line (without its newline; valid until the call, or the promise it
 * returns, ends) and its offset.
 */
export type OnLine = (line: Buffer, offset: number) => void | Promise<void>;

/** Scans the complete lines of a file; gives the end of the last one. */
async function scanLines(handle: FileHandle, onLine: OnLine): Promise<number> {
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  let lineStart = 0;
  // The start of a line that runs on past the chunk.
  let carried: Buffer[] = [];
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, CHUNK_BYTES, position);
    if (bytesRead === 0) return lineStart;
    const view = chunk.subarray(0, bytesRead);
    let from = 0;
    for (let end = view.indexOf(NEWLINE); end !== -1; end = view.indexOf(NEWLINE, from)) {
      const piece = view.subarray(from, end);
      await onLine(carried.length > 0 ? Buffer.concat([...carried, piece]) : piece, lineStart);
      carried = [];
      lineStart = position + end + 1;
      from = end + 1;
    }
    if (from < bytesRead) carried.push(Buffer.from(view.subarray(from)));
    position += bytesRead;
  }
}

/** The end of the last complete line: the file read backwards from its end to its last newline. */
async function lastLineEnd(handle: FileHandle): Promise<number> {
  const chunk = Buffer.allocUnsafe(TAIL_BYTES);
  let end = (await handle.stat()).size;
  while (end > 0) {
    const start = Math.max(0, end - TAIL_BYTES);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(NEWLINE);
    if (newline !== -1) return start + newline + 1;
    end = start;
  }
  return 0;
}

/**
 * Writes all of `bytes` at the end of the file on this thread: an append to the page cache takes
 * a few microseconds, a tenth of the CPU that handing it to the thread pool costs. The flush to
 * disk, which waits on the device, stays on the pool.
 */
function writeAll(handle: FileHandle, bytes: Buffer): void {
  for (let written = 0; written < bytes.length; ) written += writeSync(handle.fd, bytes, written);
}

/** Flushes the folder of `path` (its entries: a file created, renamed or removed). */
export async function syncFolder(path: string): Promise<void> {
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}

/** Copies the lines `keep` gives into a new file, a chunk at a time; gives its size. */
async function copyKept(from: FileHandle, to: FileHandle, limit: number, keep: Keep): Promise<number> {
  let size = 0;
  let chunk: Buffer[] = [];
  let chunkBytes = 0;
  const write = async () => {
    await to.writeFile(Buffer.concat(chunk, chunkBytes));
    chunk = [];
    chunkBytes = 0;
  };
  await scanLines(from, async (line, offset) => {
    if (offset >= limit) return;
    const kept = keep(line, offset, size);
    if (kept === undefined) return;
    chunk.push(Buffer.from(kept), Buffer.from('\n'));
    chunkBytes += kept.length + 1;
    size += kept.length + 1;
    if (chunkBytes >= CHUNK_BYTES) await write();
  });
  await write();
  return size;
}

/** A new file of the lines `keep` gives, flushed and renamed over `path`, open for appending. */
async function rewritten(path: string, from: FileHandle, limit: number, keep: Keep) {
  const temporary = `${path}.compacting`;
  const fresh = await open(temporary, 'a+', 0o600);
  try {
    await fresh.truncate(0);
    const size = await copyKept(from, fresh, limit, keep);
    await fresh.datasync();
    await rename(temporary, path);
    return { handle: fresh, size };
  } catch (error) {
    await fresh.close();
    throw error;
  }
}

/**
 * Opens (or creates) the log at `path`, calling `onLine` for each complete line (without it, only
 * the tail is read); a torn last line is cut off.
 */
export async function openLog(path: string, onLine?: OnLine): Promise<LogFile> {
  let handle = await open(path, 'a+', 0o600);
  let end: number;
  try {
    end = onLine ? await scanLines(handle, onLine) : await lastLineEnd(handle);
    if ((await handle.stat()).size > end) {
      await handle.truncate(end);
      await handle.datasync();
    }
  } catch (error) {
    await handle.close();
    throw error;
  }
  // Bytes of a failed append not cut off yet: nothing is appended until they are.
  let torn = false;
  const cutTorn = async () => {
    await handle.truncate(end);
    torn = false;
  };
  return {
    get size() {
      return end;
    },
    async append(text) {
      if (torn) await cutTorn();
      const bytes = Buffer.from(text, 'utf8');
      try {
        torn = true;
        writeAll(handle, bytes);
        await handle.datasync();
        end += bytes.length;
        torn = false;
      } catch (error) {
        // None of a failed batch is kept: what was written of it is cut off (now, or before the next append).
        await cutTorn().catch(() => undefined);
        throw error;
      }
    },
    async cutTo(size) {
      torn = true;
      end = size;
      await handle.truncate(size);
      await handle.datasync();
      torn = false;
    },
    async read(offset, length) {
      const line = Buffer.allocUnsafe(length);
      const { bytesRead } = await handle.read(line, 0, length, offset);
      return line.subarray(0, bytesRead);
    },
    async rewrite(keep) {
      if (torn) await cutTorn();
      const next = await rewritten(path, handle, end, keep);
      const old = handle;
      ({ handle, size: end } = next);
      await old.close();
      // Renamed: the new file is the log even if this fails (a crash then finds the old or the new one).
      await syncFolder(path);
    },
    close: () => handle.close(),
  };
}
