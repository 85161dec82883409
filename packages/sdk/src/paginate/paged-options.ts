import type { z } from 'zod';

/**
 * What an author declares for each paginator (cursor.ts, offset.ts, page-number.ts make them):
 * where the records are, how the next page is asked for, its page size and when to stop.
 */

/** What every declared paginator has. */
export interface PagedOptions {
  /** Where the records are in an answer: a dotted path, '' when the answer is the list. @example records: 'data' */
  records: string;
  /**
   * The page size, sent as a query parameter on the first request (and on each next one a
   * paginator builds); `max` is the most the provider accepts, and a larger `value` is refused at
   * definition. @example pageSize: { param: 'limit', value: 50, max: 100 }
   */
  pageSize?: { param: string; value: number; max?: number };
  /** When the last page has come: any condition listed that holds ends the read. */
  stop?: readonly /** The page has no records. */
  (
    | 'empty-page'
    /** The page has fewer records than the page size asked for. */
    | 'short-page'
    /** The answer says `false` at this path, e.g. `{ hasMore: 'has_more' }`; a page without `true` or `false` there is a SchemaMismatchError. */
    | { hasMore: string }
    /** The records read reach the number at this path, e.g. `{ total: 'meta.total' }` (an offset paginator: the offset reached); a page without a number there is a SchemaMismatchError. */
    | { total: string }
    /**
     * A page after the first answered with one of these 4xx statuses, e.g. `{ status: [404] }` for a
     * provider that answers 404 past the last page: the read ends there as at its last page. The same
     * status on the first page stays an error (the list itself is missing).
     */
    | { status: readonly number[] }
  )[];
  /** The record field the loop guard compares pages by, and an offset paginator drops records read again by. @default 'id' */
  recordKey?: string;
  maxPages?: number;
  maxRecords?: number;
  maxMs?: number;
  /**
   * The page's answer as the provider documents it. At definition, every path the paginator reads
   * from the body (records, a cursor or next URL, hasMore, total) must be in it, the records a list.
   * While reading, each page is checked against the part of it on the way to those paths (the
   * records as a list, not record by record): a page that does not match is a SchemaMismatchError
   * naming the path.
   * @example answer: z.object({ data: z.array(Project), pagination: z.object({ next_cursor: z.string().optional() }) })
   */
  answer?: z.ZodType;
}

/** Where a value is read from: a dotted path of the answer's body, or a header. */
export type ReadFrom = string | { header: string };

/** Where a cursor paginator reads the cursor and where it sends it back. */
export interface CursorOptions extends PagedOptions {
  cursor: {
    /** Where the cursor is in each answer. */
    from: ReadFrom;
    /** Where the cursor goes on the next request; `path`: a `{name}` placeholder of the request's path. */
    to: { query: string } | { header: string } | { body: string } | { path: string };
    /** The cursor of the first request; without it the first request carries none. */
    initial?: string;
  };
}

/** Where a next-URL paginator reads the URL of the next page. */
export interface NextUrlOptions extends PagedOptions {
  /** Where the next page's URL is. @example next: 'links.next' */
  next: ReadFrom;
}

/** The offset parameter and the page size an offset paginator sends. */
export interface OffsetOptions extends PagedOptions {
  /** The offset parameter; `initial` defaults to 0. The page size is the limit, and is required. */
  offset: { param: string; initial?: number };
  pageSize: Required<PagedOptions>['pageSize'];
}

/** How a page-number paginator names its page parameter. */
export interface PageNumberOptions extends PagedOptions {
  /** The page-number parameter; `initial` defaults to 1. */
  page: { param: string; initial?: number };
}

/** A stop condition (`PagedOptions.stop`), as the SDK's own code names it. */
export type StopWhen = NonNullable<PagedOptions['stop']>[number];

/** A page size (`PagedOptions.pageSize`), as the SDK's own code names it. */
export type PageSize = NonNullable<PagedOptions['pageSize']>;

/** Where a value goes on the next request (`CursorOptions.cursor.to`), as the SDK's own code names it. */
export type SendAs = CursorOptions['cursor']['to'];
