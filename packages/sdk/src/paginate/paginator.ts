import type { HttpRequest } from '../http/request.js';

/**
 * The contract every paginator keeps, declared or custom: how the first page is asked for,
 * where a page's records are, and how the next page is asked for (or that none follows).
 * `ctx.http.paginate` runs it, every page through the run's pipeline, under the loop guard.
 *
 * @example
 * // A provider that answers `{ items, after }` and takes `?after=` back:
 * const custom: Paginator = {
 *   first: (request) => request,
 *   records: (answer) => (answer.data as { items?: unknown[] }).items,
 *   next: (answer, request) => {
 *     const after = (answer.data as { after?: string }).after;
 *     return after ? { ...request, query: { ...request.query, after } } : undefined;
 *   },
 * };
 */
export interface Paginator {
  /** The first page's request, from the one the action passed. */
  first(request: PageRequest): PageRequest;
  /** The page's records; undefined when the answer has none where they should be (a SchemaMismatchError). */
  records(answer: PageAnswer): readonly unknown[] | undefined;
  /** The next page's request, or undefined when this page is the last; `read` counts the run's records, this page's included. */
  next(answer: PageAnswer, request: PageRequest, records: readonly unknown[], read: number): PageRequest | undefined;
  /** Where the records are, quoted in errors. @default '(records)' */
  readonly recordsPath?: string;
  /** The record field two pages in a row are compared by (the loop guard). @default 'id' */
  readonly recordKey?: string;
  /** Pages read before the run stops (with a warning in the log). @default no limit */
  readonly maxPages?: number;
  /** Records read before the run stops (with a warning in the log). @default no limit */
  readonly maxRecords?: number;
  /** Milliseconds on the transport's clock before the run stops paging (with a warning in the log). @default no limit */
  readonly maxMs?: number;
  /** The problems of the declaration, for `defineConnector` to report; none for a custom paginator. */
  problems?(): string[];
}

/** A page's request: `ctx.http`'s, or a next URL the provider gave (absolute, or relative to the page it came with). */
export interface PageRequest extends HttpRequest {
  url?: string;
}

/** What a paginator reads of one page's answer. */
export interface PageAnswer {
  status: number;
  /** The parsed body. */
  data: unknown;
  header(name: string): string | null;
  requestId: string | undefined;
}

/** One page of records as `ctx.http.paginate` yields it; `R` is what the caller says they are (unchecked). */
export interface RecordPage<R = unknown> {
  records: R[];
  /** 1 for the first page. */
  number: number;
  requestId: string | undefined;
  /** True when no page follows. */
  last: boolean;
}

/** The value at a dotted path (`pagination.next_cursor`); '' is the whole value. */
export function valueAt(value: unknown, path: string): unknown {
  if (path === '') return value;
  let current = value;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}
