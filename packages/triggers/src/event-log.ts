import { hash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { claimLine, type Entry, type EventIndex, endedLine, eventIndex, parseClaim } from './event-index.js';
import type { AcceptedDelivery, Claim, EventStore } from './event-store.js';
import { groupCommit } from './group-commit.js';
import { type LogFile, openLog } from './log-file.js';

/**
 * The accepted deliveries of a state folder in one append-only log, `events.jsonl`: a line per
 * accepted event (the digest of its event id, whether its run is pending, and the delivery with
 * its records: the run's input lives with its claim, so one write makes both durable) and a line
 * per ended run. An index of the event ids (digests and offsets, no records) is read from the log
 * on first use. Claims and ends that arrive while a batch is being written go together in the
 * next one: one write and one `fdatasync` a batch. A new claim is answered claimed at once (the
 * index knows), with its `durable` resolving only once its line is on disk, so the receipt can be
 * written meanwhile and an accepted event id is still durable before its delivery is answered. Of
 * two claims of one event, the index takes the first at once; the other waits for the first to be
 * written and is given it (or, if its write failed, claims in its place). Pruning forgets expired
 * claims at once, and drops their lines by rewriting the log once they (and the ended marks) are
 * at least half of it (pending runs and everything recent kept, ended marks folded into their
 * claims): a new file flushed, renamed over the old one, the folder flushed; appends wait for it.
 * A last line a crash tore is cut off when the log is opened. One receiver per state folder.
 */

/** The log's file, under the state folder. */
export const EVENTS_FILE = 'events.jsonl';

export interface EventLog extends EventStore {
  /** Waits for the appends under way and closes the file. */
  close(): Promise<void>;
}

interface Opened {
  log: LogFile;
  index: EventIndex;
}

interface Line {
  text: string;
  /** The entry of a claim line, told where it goes. */
  entry?: Entry;
}

const digest = (text: string) => hash('sha256', text, 'hex').slice(0, 40);

/** Whether the claim line of an entry was written (once its write is over). */
const written = async (entry: Entry): Promise<boolean> =>
  entry.durable === undefined ||
  entry.durable.then(
    () => true,
    () => false,
  );

/** Runs one file operation at a time: appends, reads and the rewrite never overlap. */
function serial(): <T>(work: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (work) => {
    const run = tail.then(work);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** A claim line with its pending mark as the entry now has it. */
function withPending(line: Buffer, pending: boolean): Buffer {
  const claim = parseClaim(line);
  return claim ? Buffer.from(claimLine({ ...claim, pending }).slice(0, -1), 'utf8') : line;
}

/** Rewrites the log with the written entries of the index only, and moves them to their new offsets. */
async function compact({ log, index }: Opened): Promise<void> {
  const written = index.byOffset();
  const moves: Array<{ entry: Entry; offset: number; length: number; logged: boolean }> = [];
  await log.rewrite((line, offset, newOffset) => {
    const entry = written.get(offset);
    if (!entry) return undefined;
    const logged = entry.pending;
    const kept = logged === entry.logged ? line : withPending(line, logged);
    moves.push({ entry, offset: newOffset, length: kept.length, logged });
    return kept;
  });
  for (const { entry, ...moved } of moves) Object.assign(entry, moved);
}

export function eventLog(stateDir: string): EventLog {
  const path = join(stateDir, EVENTS_FILE);
  const exclusive = serial();
  let opening: Promise<Opened> | undefined;
  // A failed open is not kept: the next call tries again.
  const opened = () =>
    (opening ??= mkdir(stateDir, { recursive: true, mode: 0o700 })
      .then(async () => {
        const index = eventIndex();
        return { index, log: await openLog(path, (line, offset) => index.load(line, offset)) };
      })
      .catch((error: unknown) => {
        opening = undefined;
        throw error;
      }));
  const lines = groupCommit<Line>((batch) =>
    exclusive(async () => {
      const { log, index } = await opened();
      let offset = log.size;
      for (const { text, entry } of batch) {
        const bytes = Buffer.byteLength(text);
        if (entry) Object.assign(entry, { offset, length: bytes - 1 });
        offset += bytes;
      }
      try {
        await log.append(batch.map((line) => line.text).join(''));
      } catch (error) {
        // Not kept: a claim waiting on one of these makes its own.
        for (const { entry } of batch) if (entry) index.remove(entry);
        throw error;
      }
    }),
  );
  /** The delivery of a claim once written; undefined when its write failed or it was pruned meanwhile. */
  const kept = async (entry: Entry): Promise<AcceptedDelivery | undefined> => {
    if (!(await written(entry))) return undefined;
    return exclusive(async () => {
      const { log, index } = await opened();
      if (index.find(entry.triggerId, entry.key) !== entry) return undefined;
      const claim = parseClaim(await log.read(entry.offset, entry.length));
      if (!claim) throw new Error(`${path}: the claim at byte ${entry.offset} cannot be read`);
      return claim.claim;
    });
  };
  /** Adds the claim to the index at once; gives its write, which drops it from the index if it fails. */
  const claimNew = (index: EventIndex, key: string, delivery: AcceptedDelivery, pending: boolean) => {
    const entry = index.add({ key, pending, claim: delivery });
    entry.durable = lines.submit({ text: claimLine({ key, pending, claim: delivery }), entry });
    return entry.durable.finally(() => {
      entry.durable = undefined;
    });
  };
  return {
    async claim(delivery, eventId, pending): Promise<Claim> {
      const { index } = await opened();
      const key = digest(eventId);
      for (;;) {
        const found = index.find(delivery.triggerId, key);
        if (!found) return { claimed: true, durable: claimNew(index, key, delivery, pending) };
        const first = await kept(found);
        if (first) return { claimed: false, first };
      }
    },
    async runEnded(deliveryId) {
      const { index } = await opened();
      if (index.ended(deliveryId)) await lines.submit({ text: endedLine(deliveryId) });
    },
    async pending() {
      const { index } = await opened();
      const found: AcceptedDelivery[] = [];
      for (const entry of index.pending()) {
        // A claim still being written is being accepted now: its run starts with its answer.
        if (entry.durable) continue;
        const delivery = await kept(entry);
        if (delivery) found.push(delivery);
      }
      return found;
    },
    async prune(triggerId, before) {
      const state = await opened();
      return exclusive(async () => {
        const removed = state.index.expire(triggerId, before);
        // Rewritten once what it no longer keeps is at least what it keeps: each byte is copied
        // at most once for each byte dropped, however often the receiver prunes.
        const kept = state.index.writtenBytes();
        if (removed > 0 && state.log.size - kept >= kept) await compact(state);
        return removed;
      });
    },
    async close() {
      await lines.settled();
      const closing = opening;
      opening = undefined;
      await exclusive(async () => (await closing?.catch(() => undefined))?.log.close());
    },
  };
}
