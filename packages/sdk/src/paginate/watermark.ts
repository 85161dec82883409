import { SchemaMismatchError } from '../errors.js';

/**
 * The newest cursor value read plus the ids read at exactly that value: a provider writes its
 * timestamps to the second, say, so several records share one, and a page can end among them.
 * A run that starts from a mark drops the records an earlier run read (older than the mark, or
 * at it with an id the mark holds), so none is read twice and none at the boundary is skipped.
 */
export interface Mark {
  /** The cursor value as the provider wrote it: an ISO 8601 instant or a number. */
  at: string | number;
  seen_ids: string[];
}

export interface MarkFields {
  /** `connector action`, for errors. */
  subject: string;
  cursor: string;
  id: string;
  /** The request id of the answer the records came with, for errors. */
  requestId: () => string | undefined;
}

/** Where a value stands in the cursor's order: a number as it is, a string as the instant it names. */
export function rank(value: unknown): number {
  if (typeof value === 'number') return value;
  return typeof value === 'string' && value !== '' ? Date.parse(value) : Number.NaN;
}

export class Watermark {
  /** `at`'s rank; -Infinity before any record, a number throughout so that moving it allocates nothing. */
  private atRank = Number.NEGATIVE_INFINITY;
  private at: string | number | undefined;
  /** The ids read at `at`: the first `seenCount` of `seen`, reused as the mark moves (an array emptied frees its store). */
  private readonly seen: string[] = [];
  private seenCount = 0;
  private readonly startRank: number | undefined;
  private readonly before: ReadonlySet<string>;

  constructor(
    private readonly fields: MarkFields,
    start?: Mark,
  ) {
    if (start) {
      this.at = start.at;
      this.atRank = rank(start.at);
      for (const seenId of start.seen_ids) this.seen.push(seenId);
      this.seenCount = this.seen.length;
    }
    this.startRank = start ? this.atRank : undefined;
    this.before = new Set(start?.seen_ids ?? []);
  }

  /** False for a record an earlier run read already (older than the start, or at it and seen). */
  isNew(record: unknown): boolean {
    if (this.startRank === undefined) return true;
    const at = this.rankOf(record);
    if (at < this.startRank) return false;
    return !(at === this.startRank && this.before.has(this.idOf(record)));
  }

  /** Moves the mark on to a record read now. */
  note(record: unknown): void {
    const at = this.rankOf(record);
    if (at > this.atRank) {
      this.atRank = at;
      this.at = (record as Record<string, string | number>)[this.fields.cursor];
      this.seenCount = 0;
    } else if (at !== this.atRank) return;
    this.seen[this.seenCount] = this.idOf(record);
    this.seenCount += 1;
  }

  /** The mark so far; undefined before any record or start. */
  get mark(): Mark | undefined {
    return this.at === undefined
      ? undefined
      : { at: this.at, seen_ids: [...new Set(this.seen.slice(0, this.seenCount))].sort() };
  }

  private rankOf(record: unknown): number {
    const at = rank(this.field(record, this.fields.cursor));
    if (Number.isNaN(at)) this.refuse(this.fields.cursor, this.field(record, this.fields.cursor));
    return at;
  }

  private idOf(record: unknown): string {
    const value = this.field(record, this.fields.id);
    if ((typeof value !== 'string' || value === '') && typeof value !== 'number') this.refuse(this.fields.id, value);
    return String(value);
  }

  private field(record: unknown, name: string): unknown {
    return record !== null && typeof record === 'object' ? (record as Record<string, unknown>)[name] : undefined;
  }

  private refuse(field: string, value: unknown): never {
    throw new SchemaMismatchError(
      this.fields.subject,
      [{ path: field, message: `a record has no usable ${field}: ${String(JSON.stringify(value)).slice(0, 80)}` }],
      { requestId: this.fields.requestId() },
    );
  }
}
