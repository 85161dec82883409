import type { AcceptedDelivery } from './event-store.js';

/**
 * The event log's index, in memory: per trigger, the digest of each accepted event id with where
 * its claim line is in the log, when it was received and whether its run is pending. It holds no
 * delivery's records (those stay in the log, read back when needed), so it costs about 200 bytes
 * of heap an event, whatever the bodies (`tools/bench/event-index.mjs`).
 *
 * The log's lines: `{"key":…,"pending":…,"claim":AcceptedDelivery}` (an accepted event, its
 * input with it) and `{"ended":deliveryId}` (its run ended).
 */

export interface Entry {
  readonly triggerId: string;
  /** The digest of the event id the sender signed. */
  readonly key: string;
  /** The delivery's id while its run is pending (how its end finds it); an index of many events keeps no other. */
  deliveryId: string | undefined;
  /** ms since the epoch, on the receiver's clock. */
  readonly receivedAt: number;
  /** Where its claim line is in the log: -1 until written. */
  offset: number;
  length: number;
  /** Its run has not ended. */
  pending: boolean;
  /** Whether its claim line says pending. */
  logged: boolean;
  /** Until its claim line is on disk. */
  durable?: Promise<void>;
}

export interface ClaimLine {
  key: string;
  pending: boolean;
  claim: AcceptedDelivery;
}

export const claimLine = (line: ClaimLine) => `${JSON.stringify(line)}\n`;
export const endedLine = (deliveryId: string) => `${JSON.stringify({ ended: deliveryId })}\n`;

/** A claim line read back; undefined when it is not one. */
export const parseClaim = (line: Buffer): ClaimLine | undefined => asClaim(parseLine(line));

function asClaim(value: Record<string, unknown> | undefined): ClaimLine | undefined {
  return value !== undefined && typeof value.key === 'string' && isDelivery(value.claim)
    ? (value as unknown as ClaimLine)
    : undefined;
}

function parseLine(line: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'));
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function isDelivery(value: unknown): value is AcceptedDelivery {
  const delivery = value as Partial<AcceptedDelivery> | null;
  return (
    typeof delivery?.triggerId === 'string' &&
    typeof delivery.deliveryId === 'string' &&
    typeof delivery.receivedAt === 'string' &&
    Array.isArray(delivery.records)
  );
}

export interface EventIndex {
  find(triggerId: string, key: string): Entry | undefined;
  /** Adds a claim not yet written. */
  add(claim: ClaimLine): Entry;
  /** Takes an entry out (its claim failed to be written, or it was pruned). */
  remove(entry: Entry): void;
  /** Marks the run of a delivery ended; gives its entry, when it was pending. */
  ended(deliveryId: string): Entry | undefined;
  /** The entries whose run is pending, oldest first. */
  pending(): Entry[];
  /** Removes the entries of a trigger received before `before` whose runs are not pending. */
  expire(triggerId: string, before: number): number;
  /** Every written entry, by its offset in the log. */
  byOffset(): Map<number, Entry>;
  /** Bytes of the log the written entries' claim lines take, newlines included. */
  writtenBytes(): number;
  /** Applies a line of the log read at `offset`; a line that is not one of the log's (torn) is passed over. */
  load(line: Buffer, offset: number): void;
}

export function eventIndex(): EventIndex {
  const triggers = new Map<string, Map<string, Entry>>();
  const pendingRuns = new Map<string, Entry>();
  const entriesOf = (triggerId: string) => {
    let entries = triggers.get(triggerId);
    if (!entries) triggers.set(triggerId, (entries = new Map()));
    return entries;
  };
  const add = ({ key, pending, claim }: ClaimLine, offset = -1, length = 0): Entry => {
    const { triggerId, deliveryId } = claim;
    const entry: Entry = {
      triggerId,
      key,
      deliveryId: pending ? deliveryId : undefined,
      receivedAt: Date.parse(claim.receivedAt),
      offset,
      length,
      pending,
      logged: pending,
    };
    entriesOf(triggerId).set(key, entry);
    if (pending) pendingRuns.set(deliveryId, entry);
    return entry;
  };
  const ended = (deliveryId: string) => {
    const entry = pendingRuns.get(deliveryId);
    pendingRuns.delete(deliveryId);
    if (entry) Object.assign(entry, { pending: false, deliveryId: undefined });
    return entry;
  };
  return {
    find: (triggerId, key) => triggers.get(triggerId)?.get(key),
    add: (claim) => add(claim),
    remove(entry) {
      const entries = triggers.get(entry.triggerId);
      if (entries?.get(entry.key) === entry) entries.delete(entry.key);
      if (entry.deliveryId !== undefined && pendingRuns.get(entry.deliveryId) === entry)
        pendingRuns.delete(entry.deliveryId);
    },
    ended,
    pending: () => [...pendingRuns.values()].sort((a, b) => a.receivedAt - b.receivedAt),
    expire(triggerId, before) {
      const entries = triggers.get(triggerId);
      let removed = 0;
      for (const [key, entry] of entries ?? []) {
        if (entry.pending || entry.offset < 0 || !(entry.receivedAt < before)) continue;
        entries!.delete(key);
        removed += 1;
      }
      return removed;
    },
    byOffset() {
      const written = new Map<number, Entry>();
      for (const entries of triggers.values())
        for (const entry of entries.values()) if (entry.offset >= 0) written.set(entry.offset, entry);
      return written;
    },
    writtenBytes() {
      let bytes = 0;
      for (const entries of triggers.values())
        for (const entry of entries.values()) if (entry.offset >= 0) bytes += entry.length + 1;
      return bytes;
    },
    load(line, offset) {
      const value = parseLine(line);
      if (typeof value?.ended === 'string') return void ended(value.ended);
      const claim = asClaim(value);
      // A later claim of an event was made once the earlier one was pruned (the log keeps pruned
      // lines until it is compacted): the later one holds.
      if (claim) add(claim, offset, line.length);
    },
  };
}
