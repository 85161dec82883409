/**
 * Catches a provider whose page cursors come round in a cycle, so that a read
 * stops instead of paging forever. A set of every cursor seen would grow with
 * the list; this remembers one cursor at a time and replaces it after 1, 2, 4,
 * ... pages (Brent's cycle detection), which meets the cycle again within
 * three times the pages that lead into it and go round it.
 *
 * ```ts
 * const loop = cursorLoop();
 * do {
 *   const page = await ctx.http.get<Page>('/items', { query: { cursor } });
 *   if (loop.repeats(page.next_cursor)) throw new SchemaMismatchError(...);
 *   yield { records: page.data };
 *   cursor = page.next_cursor;
 * } while (cursor);
 * ```
 *
 * Each call makes a fresh detector for one read's cursors.
 */
export function cursorLoop(): {
  /** Takes the next page's cursor (undefined on the last page); true when the provider is going round in a cycle. */
  repeats(cursor: string | undefined): boolean;
} {
  return new BrentLoop();
}

class BrentLoop {
  private remembered: string | undefined;
  private sinceRemembered = 0;
  private stretch = 1;

  repeats(cursor: string | undefined): boolean {
    if (cursor !== undefined && cursor === this.remembered) return true;
    this.sinceRemembered += 1;
    if (this.sinceRemembered === this.stretch) {
      this.remembered = cursor;
      this.sinceRemembered = 0;
      this.stretch *= 2;
    }
    return false;
  }
}
