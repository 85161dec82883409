import { SchemaMismatchError } from '@plugboard/sdk';
import { z } from 'zod';

/**
 * Incremental reading by a timestamp field. The checkpoint is the newest timestamp read plus
 * the ids read at exactly that instant: the provider writes timestamps to the second, so
 * several records can share one, and a page can end in the middle of them.
 *
 * The next run asks for records from just before that instant (1 ms earlier), which returns
 * the records at the instant whether the provider's `*_after` filter includes its bound (the
 * simulator does) or not (the document does not say), and drops the ones already read: those
 * older than the instant and those at it whose ids the checkpoint holds. No record is read
 * twice and none at the boundary is skipped.
 */

export const seenIds = z.array(z.string().min(1)).describe('Ids already read at exactly that instant');

export interface Mark {
  /** ISO 8601 instant, as the provider wrote it. */
  at: string;
  seen_ids: string[];
}

/** What to send as the `*_after` filter to resume at `at`: 1 ms earlier, in ISO 8601. */
export function resumeFrom(at: string): string {
  return new Date(Date.parse(at) - 1).toISOString();
}

export interface WatermarkFields {
  /** `descript projects.list`, for errors. */
  subject: string;
  /** The timestamp field, e.g. `updated_at`. */
  time: string;
  /** The id field, e.g. `id`. */
  id: string;
  /** The provider's id of the request that brought the records (`ctx.http.lastRequestId`), for errors. */
  requestId: () => string | undefined;
}

export class Watermark {
  /** `at` in ms; -Infinity before any record, a number throughout so that moving it allocates nothing. */
  private atMs = Number.NEGATIVE_INFINITY;
  private at: string | undefined;
  /**
   * The ids read at `at`: the first `seenCount` of `seen`. A list sorted by time moves the mark
   * on at nearly every record, so the array is reused rather than emptied (which frees its store).
   */
  private readonly seen: string[] = [];
  private seenCount = 0;
  /** Where the run started and the ids an earlier run read at that instant. */
  private readonly startMs: number | undefined;
  private readonly before: ReadonlySet<string>;

  constructor(
    private readonly fields: WatermarkFields,
    start?: Mark,
  ) {
    if (start) {
      this.at = start.at;
      this.atMs = Date.parse(start.at);
      for (const seenId of start.seen_ids) this.seen.push(seenId);
      this.seenCount = this.seen.length;
    }
    this.startMs = start ? this.atMs : undefined;
    this.before = new Set(start?.seen_ids ?? []);
  }

  /** False for a record an earlier run read already (older than the start, or at it and seen). */
  isNew(record: unknown): boolean {
    if (this.startMs === undefined) return true;
    const ms = Date.parse(this.read(record, this.fields.time));
    if (ms < this.startMs) return false;
    return !(ms === this.startMs && this.before.has(this.read(record, this.fields.id)));
  }

  /**
   * The records of a page an earlier run has not read, in order, with the mark moved on past
   * them; the page's own array when the run started from nothing (no copy per page).
   */
  keepNew<T>(records: T[]): T[] {
    const kept = this.startMs === undefined ? records : records.filter((record) => this.isNew(record));
    for (let index = 0; index < kept.length; index += 1) this.note(kept[index]);
    return kept;
  }

  /** Moves the mark on to a record read now. */
  note(record: unknown): void {
    const value = this.read(record, this.fields.time);
    const ms = Date.parse(value);
    const recordId = this.read(record, this.fields.id);
    if (ms > this.atMs) {
      this.atMs = ms;
      this.at = value;
      this.seenCount = 0;
    } else if (ms !== this.atMs) return;
    this.seen[this.seenCount] = recordId;
    this.seenCount += 1;
  }

  /** The mark so far; undefined before any record or start. */
  get mark(): Mark | undefined {
    return this.at === undefined
      ? undefined
      : { at: this.at, seen_ids: [...new Set(this.seen.slice(0, this.seenCount))].sort() };
  }

  private read(record: unknown, field: string): string {
    const value = record && typeof record === 'object' ? (record as Record<string, unknown>)[field] : undefined;
    const usable =
      typeof value === 'string' && value !== '' && (field !== this.fields.time || !Number.isNaN(Date.parse(value)));
    if (!usable) {
      throw new SchemaMismatchError(
        this.fields.subject,
        [{ path: field, message: `a record has no usable ${field}: ${JSON.stringify(value)}` }],
        {
          requestId: this.fields.requestId(),
        },
      );
    }
    return value;
  }
}
