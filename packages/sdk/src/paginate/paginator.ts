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
  /** Pages read before the run stops (with a warning in the log, `pagingEnded: 'maxPages'`). @default no limit */
  readonly maxPages?: number;
  /** Records read before the run stops (with a warning in the log, `pagingEnded: 'maxRecords'`). @default no limit */
  readonly maxRecords?: number;
  /** Milliseconds on the transport's clock before the run stops paging (with a warning in the log, `pagingEnded: 'maxMs'`). @default no limit */
  readonly maxMs?: number;
  /**
   * Statuses (4xx) that, answered for any page after the first, mean the list has ended: the read
   * ends there as at its last page (a 404 or a 400 "page out of range" past the end). On the first
   * page they stay the error they are. @default none
   */
  readonly stopStatus?: readonly number[];
  /**
   * How the next page is asked for; set by the declared paginators, absent on a custom one. A
   * `cursor`, `next-url` or `link-header` paginator reads it from the answer, so a provider that
   * answers a cursor again would loop (the loop guard stops it); an `offset` or `page-number` one
   * counts it up itself.
   */
  readonly kind?: 'cursor' | 'offset' | 'page-number' | 'next-url' | 'link-header';
  /** The problems of the declaration, for `defineConnector` to report; none for a custom paginator. */
  problems?(): string[];
}

/** How a paginator asks for the next page (`Paginator.kind`), as the SDK's own code names it. */
export type PaginatorKind = NonNullable<Paginator['kind']>;

/**
 * Why a paged read ended, in the `pagingEnded` field of the log entry that says so (with `page`,
 * the page it ended on or before): `last-page` when the paginator's stop condition fired (a debug
 * entry), `checkpoint` when a newest-first incremental read came down to where its checkpoint
 * began (debug), or the limit that stopped it, `maxPages`, `maxRecords` or `maxMs` (a warning:
 * more pages may follow). A read that fails or that its caller stops early logs none.
 */
export type PagingEnd = 'last-page' | 'checkpoint' | 'maxPages' | 'maxRecords' | 'maxMs';

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

/**
 * Thrown by a declared paginator when a value it reads from a page is missing or of the wrong type
 * (a stop condition's, a cursor, a next URL, or one the declared answer does not allow); the
 * paging loop reports it as a SchemaMismatchError naming each path and the page.
 */
export class PageValueError extends Error {
  constructor(
    /** Each path and what the page has there, e.g. `has no number here (the stop condition reads it)`. */
    readonly issues: readonly { path: string; found: string }[],
  ) {
    super(issues.map((issue) => `${issue.path}: ${issue.found}`).join('; '));
  }
}

/**
 * Thrown by a declared paginator that would have to go round in circles to read on (an offset
 * stepped back again and again by a total that keeps shrinking); the paging loop reports it as a
 * PagingLoopError naming the page.
 */
export class PageLoop extends Error {}

/**
 * Put by a paginator on the next page's request when it sets the page just read aside and steps
 * back: the value is how many records the next pages may hold that the run delivered already.
 * The paging loop delivers nothing of the page set aside, drops records it delivered already by
 * their key, and compares the pages asked from there on with each other only (loop guard).
 */
export const STEP_BACK: unique symbol = Symbol('plugboard.stepBack');

/** The records a step back may read again, when the request follows one. */
export function stepBackOf(request: PageRequest): number | undefined {
  return (request as { [STEP_BACK]?: number })[STEP_BACK];
}

/** What a value from a page is, for errors: `an object`, `an array`, `a boolean`, `a number`, `text`, `null`. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'text';
  return typeof value === 'number' || typeof value === 'boolean' ? `a ${typeof value}` : String(typeof value);
}
