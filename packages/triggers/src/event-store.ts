import { createHash } from 'node:crypto';
import { link, mkdir, open, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Accepted deliveries kept in the state folder, one file each, which is at once the dedupe record
 * of its event id (durable across a restart) and the run's input (kept `inputRetentionDays`).
 *
 * - `events/<trigger>/<event>.json`: named by digests of the triggerId and the event id. A file
 *   is written whole and flushed under a temporary name, then linked to its name: the link fails
 *   when the name exists, so of two deliveries of one event exactly one is accepted, and a reader
 *   never sees half a file. Its modification time is the delivery's `receivedAt` on the
 *   receiver's clock, which pruning reads.
 * - `pending/<deliveryId>.json`: a second link to the same file while its run has not ended,
 *   made before the claim; a restart starts the runs still pending whose claim was made.
 * - `tmp/`: files being written.
 */

/** A delivery as accepted: its records are the run's input. */
export interface AcceptedDelivery {
  triggerId: string;
  /** As a receipt keeps it: the trigger's secrets hidden. */
  eventId: string;
  deliveryId: string;
  /** The run it started; null when its trigger starts none. */
  executionId: string | null;
  receivedAt: string;
  records: unknown[];
}

export type Claim = { claimed: true } | { claimed: false; first: AcceptedDelivery };

export interface EventStore {
  /**
   * Keeps the delivery unless the event id the sender signed (`eventId`) was accepted before (then
   * the first one is given); `pending` marks its run as not yet ended.
   */
  claim(delivery: AcceptedDelivery, eventId: string, pending: boolean): Promise<Claim>;
  /** The run of the delivery ended: it is no longer pending. */
  runEnded(deliveryId: string): Promise<void>;
  /** Accepted deliveries whose run has not ended, oldest first. */
  pending(): Promise<AcceptedDelivery[]>;
  /** Removes the deliveries of a trigger received before `before` (ms since the epoch); returns how many. */
  prune(triggerId: string, before: number): Promise<number>;
}

const digest = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length);

/** A kept delivery, with the name of its event's file. */
type Kept = AcceptedDelivery & { eventKey: string };

async function unlinkIfThere(file: string): Promise<void> {
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

async function listed(dir: string): Promise<string[]> {
  return readdir(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [];
    throw error;
  });
}

/** Writes the whole text under a fresh name, its modification time set, flushed to disk. */
async function writeFlushed(file: string, text: string, modified: Date): Promise<void> {
  const handle = await open(file, 'wx', 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.utimes(modified, modified);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

export function eventStore(dir: string): EventStore {
  const folders = { events: join(dir, 'events'), pending: join(dir, 'pending'), tmp: join(dir, 'tmp') };
  const eventFolder = (triggerId: string) => join(folders.events, digest(triggerId, 16));
  const eventFile = (triggerId: string, eventKey: string) => join(eventFolder(triggerId), `${eventKey}.json`);
  const pendingFile = (deliveryId: string) => join(folders.pending, `${deliveryId}.json`);
  // Folders made once per process: a claim then costs no mkdir.
  const made = new Set<string>();
  const makeFolders = async (wanted: string[]) => {
    for (const folder of wanted.filter((name) => !made.has(name))) {
      await mkdir(folder, { recursive: true, mode: 0o700 });
      made.add(folder);
    }
  };
  const read = async (file: string) => {
    const { eventKey, ...delivery } = JSON.parse(await readFile(file, 'utf8')) as Kept;
    return { delivery: delivery as AcceptedDelivery, eventKey };
  };
  return {
    async claim(delivery, eventId, pending) {
      const eventKey = digest(eventId, 40);
      const target = eventFile(delivery.triggerId, eventKey);
      await makeFolders([folders.tmp, folders.pending, eventFolder(delivery.triggerId)]);
      const temporary = join(folders.tmp, `${delivery.deliveryId}.json`);
      const kept: Kept = { ...delivery, eventKey };
      await writeFlushed(temporary, JSON.stringify(kept), new Date(delivery.receivedAt));
      try {
        if (pending) await link(temporary, pendingFile(delivery.deliveryId));
        try {
          await link(temporary, target);
          return { claimed: true };
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
          await unlinkIfThere(pendingFile(delivery.deliveryId));
          return { claimed: false, first: (await read(target)).delivery };
        }
      } finally {
        await unlinkIfThere(temporary);
      }
    },
    runEnded: (deliveryId) => unlinkIfThere(pendingFile(deliveryId)),
    async pending() {
      const found: AcceptedDelivery[] = [];
      for (const name of await listed(folders.pending)) {
        const file = join(folders.pending, name);
        const { delivery, eventKey } = await read(file);
        const claimed = await stat(eventFile(delivery.triggerId, eventKey)).catch(() => undefined);
        // Marked but never claimed (a crash between the two links): the sender was never answered.
        if (claimed?.ino === (await stat(file)).ino) found.push(delivery);
        else await unlinkIfThere(file);
      }
      return found.sort((a, b) => a.receivedAt.localeCompare(b.receivedAt));
    },
    async prune(triggerId, before) {
      let removed = 0;
      for (const folder of [eventFolder(triggerId), folders.tmp]) {
        for (const name of await listed(folder)) {
          const file = join(folder, name);
          const info = await stat(file).catch(() => undefined);
          if (info && info.mtimeMs < before) {
            await unlinkIfThere(file);
            if (folder !== folders.tmp) removed += 1;
          }
        }
      }
      return removed;
    },
  };
}
