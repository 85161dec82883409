import { unit } from '../util/prng.js';
import { DAY, MINUTE, floorToSecond } from '../util/time.js';

/**
 * When seeded projects were created and last updated. Both instants grow with the ordinal,
 * so a time filter or a time-sorted cursor maps to an ordinal range found by binary search:
 * a page of a million-project drive costs O(page + log size).
 */

const SPAN_MS = 3 * 365 * DAY;
const SALT_TIME = 11;
/** The newest projects are updated within minutes of the anchor, so incremental reads find recent changes. */
const RECENT_STEP_MS = 10 * MINUTE;

export type TimeField = 'created' | 'updated';

export class SeededTimeline {
  constructor(
    private readonly seed: number,
    private readonly size: number,
    /** The instant the drive was seeded at; every seeded timestamp is at or before it. */
    private readonly anchorMs: number,
  ) {}

  createdAt(ordinal: number): number {
    const position = (ordinal + 0.4 * unit(this.seed, ordinal, SALT_TIME)) / this.size;
    return floorToSecond(this.anchorMs - SPAN_MS + position * SPAN_MS);
  }

  updatedAt(ordinal: number): number {
    const age = this.anchorMs - this.createdAt(ordinal);
    // Both terms shrink as the ordinal grows, so their minimum keeps updated_at monotonic.
    return floorToSecond(this.anchorMs - Math.min(age / 2, (this.size - ordinal) * RECENT_STEP_MS));
  }

  at(field: TimeField, ordinal: number): number {
    return field === 'created' ? this.createdAt(ordinal) : this.updatedAt(ordinal);
  }

  /** First ordinal in [0, size] whose instant is >= ms. */
  firstAtOrAfter(field: TimeField, ms: number): number {
    return this.search((ordinal) => this.at(field, ordinal) >= ms);
  }

  /** First ordinal in [0, size] whose instant is > ms. */
  firstAfter(field: TimeField, ms: number): number {
    return this.search((ordinal) => this.at(field, ordinal) > ms);
  }

  /** First ordinal in [0, size] for which a monotonic (false..true) predicate holds. */
  search(holds: (ordinal: number) => boolean): number {
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (holds(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
