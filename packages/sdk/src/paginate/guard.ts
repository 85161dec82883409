import { createHash } from 'node:crypto';
import { cursorLoop } from './cursor-loop.js';

/**
 * The loop guard of a paged read. Every page's request (method, URL, body, headers: so a
 * cursor, offset, page number or next URL wherever it goes) is remembered as a 96-bit hash, and
 * one asked for again is caught, A, B, A included. Memory is bounded: the first
 * {@link REMEMBERED} requests are remembered exactly (about 5 MB at most); past that, a cycle is
 * still caught by Brent's method over the hashes (one remembered at a time), within three times
 * the pages that lead into it and go round it. A paginator that steps back on purpose (an offset
 * after the list shrank, bounded there) starts a new visit: its pages are compared with each other.
 */
export const REMEMBERED = 65_536;

const hash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);

export class LoopGuard {
  private readonly seen = new Set<string>();
  private readonly beyond = cursorLoop();
  private lastPage: string | undefined;
  private visit = 0;

  /** True when this request was asked for before in the run (in this visit). */
  asksAgain(request: string): boolean {
    const key = hash(`${this.visit}\n${request}`);
    if (this.seen.has(key)) return true;
    if (this.seen.size < REMEMBERED) {
      this.seen.add(key);
      return false;
    }
    return this.beyond.repeats(key);
  }

  /** The paginator stepped back: the pages it asks from now on may be ones it asked before. */
  steppedBack(): void {
    this.visit += 1;
    this.lastPage = undefined;
  }

  /** True when a page holds the same records, by key, as the page before it (empty pages are never alike). */
  sameAsLast(records: readonly unknown[], keyField: string): boolean {
    if (records.length === 0) {
      this.lastPage = undefined;
      return false;
    }
    const page = hash(pageKeys(records, keyField));
    const same = page === this.lastPage;
    this.lastPage = page;
    return same;
  }
}

/** The page's record keys in order, or the whole page when a record has no key. */
function pageKeys(records: readonly unknown[], keyField: string): string {
  let keys = '';
  for (const record of records) {
    const key =
      record !== null && typeof record === 'object' ? (record as Record<string, unknown>)[keyField] : undefined;
    if (typeof key !== 'string' && typeof key !== 'number') return JSON.stringify(records);
    keys += `${key}\u0000`;
  }
  return keys;
}
