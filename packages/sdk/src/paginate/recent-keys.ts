import { createHash } from 'node:crypto';

/**
 * The keys of the records an offset read delivered last, so that a page read again after a step
 * back (offset.ts) has those it delivered already left out. Memory is bounded: the latest
 * {@link RECENT_KEYS} keys (a key longer than 64 characters kept as a 96-bit hash), the oldest
 * forgotten first; a step back over more records than that, once some were forgotten, cannot be
 * told apart and is refused by the paging loop.
 */
export const RECENT_KEYS = 10_000;

const LONG_KEY = 64;

const hash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);

/** The record's key at `field` as text, or a hash of the whole record when it has none. */
function keyOf(record: unknown, field: string): string {
  const value = record !== null && typeof record === 'object' ? (record as Record<string, unknown>)[field] : undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value.length > LONG_KEY ? `#${hash(value)}` : value;
  return `#${hash(JSON.stringify(record) ?? String(record))}`;
}

export class RecentKeys {
  private readonly order: string[] = [];
  private readonly kept = new Set<string>();
  /** Where the next key goes in `order` once it is full (the oldest key's place). */
  private oldest = 0;
  private forgot = false;

  /** The records whose key was not delivered (nor seen earlier on the page), with their keys. */
  unseen(records: readonly unknown[], field: string): { fresh: unknown[]; keys: string[] } {
    const fresh: unknown[] = [];
    const keys: string[] = [];
    const onPage = new Set<string>();
    for (const record of records) {
      const key = keyOf(record, field);
      if (this.kept.has(key) || onPage.has(key)) continue;
      onPage.add(key);
      fresh.push(record);
      keys.push(key);
    }
    return { fresh, keys };
  }

  /** Remembers the keys of records delivered now. */
  add(keys: readonly string[]): void {
    for (const key of keys) {
      if (this.order.length < RECENT_KEYS) this.order.push(key);
      else {
        this.kept.delete(this.order[this.oldest]!);
        this.order[this.oldest] = key;
        this.oldest = (this.oldest + 1) % RECENT_KEYS;
        this.forgot = true;
      }
      this.kept.add(key);
    }
  }

  /** Whether the keys of the latest `count` records delivered are all kept. */
  covers(count: number): boolean {
    return count <= RECENT_KEYS || !this.forgot;
  }
}
