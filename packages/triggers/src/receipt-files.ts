import { open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The receipts' files when the receipts are kept for a number of days (`receiptRetentionDays`):
 * the current file, `receipts.jsonl`, is set aside once a day (on the first receipt of a new UTC
 * day) as `receipts-<its first receipt's time>.jsonl`, so removing a day's receipts is removing a
 * file, never rewriting one. A file set aside ends where the next one begins: it is removed once
 * that is before the cut-off, so a receipt is kept for its retention and at most a day more.
 */

/** The file the receipts are appended to, under the state folder. */
export const RECEIPTS_FILE = 'receipts.jsonl';

const SET_ASIDE = /^receipts-(\d{8}T\d{9}Z)\.jsonl$/;
/** The longest first line read to find when a file began. */
const FIRST_LINE_BYTES = 64 * 1024;

/** A time as a file name can hold it: `20260101T000000000Z`. */
const stamp = (time: number) => new Date(time).toISOString().replace(/[-:.]/g, '');
const timeOf = (text: string) =>
  Date.parse(
    `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 11)}:${text.slice(11, 13)}:${text.slice(13, 15)}.${text.slice(15)}`,
  );

export const dayOf = (time: number) => Math.floor(time / 86_400_000);

/** The files set aside, oldest first, with when each began. */
export async function filesSetAside(stateDir: string): Promise<Array<{ name: string; began: number }>> {
  let names: string[];
  try {
    names = await readdir(stateDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return names
    .flatMap((name) => {
      const match = SET_ASIDE.exec(name);
      return match ? [{ name, began: timeOf(match[1]!) }] : [];
    })
    .sort((a, b) => a.began - b.began);
}

/** When the receipts of a file began: its first receipt's `receivedAt`; undefined when it has none (or none that can be read). */
export async function firstReceivedAt(path: string): Promise<number | undefined> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const chunk = Buffer.allocUnsafe(FIRST_LINE_BYTES);
    const { bytesRead } = await handle.read(chunk, 0, FIRST_LINE_BYTES, 0);
    const end = chunk.subarray(0, bytesRead).indexOf(0x0a);
    if (end === -1) return undefined;
    const time = Date.parse(
      (JSON.parse(chunk.toString('utf8', 0, end)) as { receivedAt?: unknown }).receivedAt as string,
    );
    return Number.isNaN(time) ? undefined : time;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Sets the current file aside under the time its first receipt came. */
export async function setCurrentAside(stateDir: string, began: number): Promise<void> {
  await rename(join(stateDir, RECEIPTS_FILE), join(stateDir, `receipts-${stamp(began)}.jsonl`));
}

/**
 * Removes the files set aside whose receipts all came before `before`. The last
 * one ends where the current file began, asked once the folder is read (`current`: undefined
 * while the current file has no receipt, or is being set aside).
 */
export async function removeSetAside(
  stateDir: string,
  current: () => number | undefined,
  before: number,
): Promise<void> {
  const files = await filesSetAside(stateDir);
  for (const [at, file] of files.entries()) {
    const ended = files[at + 1]?.began ?? current();
    if (ended === undefined || ended > before) return;
    await rm(join(stateDir, file.name), { force: true });
  }
}
