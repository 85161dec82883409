import { z } from 'zod';
import {
  MissingPagingValue,
  type PageAnswer,
  type PageRequest,
  type Paginator,
  type PaginatorKind,
  valueAt,
} from './paginator.js';

/**
 * Paginators as data: each declared by where the records are, how the next page is asked
 * for, its page size and when to stop. A declaration that cannot work (no stop condition that
 * can fire, a page size over its cap) is reported by `defineConnector` for the action that
 * declares it; `problems()` lists what is wrong.
 */

/** When the last page has come: any condition listed that holds ends the read. */
export type StopWhen =
  /** The page has no records. */
  | 'empty-page'
  /** The page has fewer records than the page size asked for. */
  | 'short-page'
  /** The answer says `false` at this path, e.g. `{ hasMore: 'has_more' }`; a page without `true` or `false` there is a SchemaMismatchError. */
  | { hasMore: string }
  /** The records read reach the number at this path, e.g. `{ total: 'meta.total' }`; a page without a number there is a SchemaMismatchError. */
  | { total: string };

/** The page size, sent as a query parameter on the first request (and on each next one a paginator builds). */
export interface PageSize {
  /** @example param: 'limit' */
  param: string;
  value: number;
  /** The most the provider accepts; a larger `value` is refused at definition. */
  max?: number;
}

/** What every declared paginator has. */
export interface PagedOptions {
  /** Where the records are in an answer: a dotted path, '' when the answer is the list. @example records: 'data' */
  records: string;
  pageSize?: PageSize;
  stop?: readonly StopWhen[];
  /** The record field the loop guard compares pages by. @default 'id' */
  recordKey?: string;
  maxPages?: number;
  maxRecords?: number;
  maxMs?: number;
  /**
   * The page's answer as the provider documents it. Only checked against at definition: every
   * path the paginator reads from the body (records, a cursor or next URL, hasMore, total) must be
   * in it, the records an array; pages are not parsed with it.
   * @example answer: z.object({ data: z.array(Project), pagination: z.object({ next_cursor: z.string().optional() }) })
   */
  answer?: z.ZodType;
}

/** Where a value is read from: a dotted path of the answer's body, or a header. */
export type ReadFrom = string | { header: string };

/** Where the cursor goes on the next request. `path`: a `{name}` placeholder of the request's path. */
export type SendAs = { query: string } | { header: string } | { body: string } | { path: string };

export interface CursorOptions extends PagedOptions {
  cursor: {
    from: ReadFrom;
    to: SendAs;
    /** The cursor of the first request; without it the first request carries none. */
    initial?: string;
  };
}

export interface OffsetOptions extends PagedOptions {
  /** The offset parameter; `initial` defaults to 0. The page size is the limit, and is required. */
  offset: { param: string; initial?: number };
  pageSize: PageSize;
}

export interface PageNumberOptions extends PagedOptions {
  /** The page-number parameter; `initial` defaults to 1. */
  page: { param: string; initial?: number };
}

export interface NextUrlOptions extends PagedOptions {
  /** Where the next page's URL is. @example next: 'links.next' */
  next: ReadFrom;
}

const read = (answer: PageAnswer, from: ReadFrom): unknown =>
  typeof from === 'string' ? valueAt(answer.data, from) : (answer.header(from.header) ?? undefined);

const withValue = (request: PageRequest, to: SendAs, value: string | number): PageRequest => {
  if ('query' in to) return { ...request, query: { ...request.query, [to.query]: value } };
  if ('header' in to) return { ...request, headers: { ...request.headers, [to.header]: String(value) } };
  if ('path' in to) return { ...request, params: { ...request.params, [to.path]: value } };
  const body = request.json !== null && typeof request.json === 'object' ? request.json : {};
  return { ...request, json: { ...body, [to.body]: value } };
};

const sized = (request: PageRequest, size: PageSize | undefined): PageRequest =>
  size ? { ...request, query: { ...request.query, [size.param]: size.value } } : request;

/** The common part of a declared paginator: records, stop conditions, limits and their problems. */
function declared(
  options: PagedOptions,
  kind: {
    name: PaginatorKind;
    stops: readonly StopWhen[];
    followsLink: boolean;
    problems: string[];
    /** What it reads from the answer's body besides records and stop values, by the option's name. */
    reads?: Record<string, ReadFrom | undefined>;
  },
  first: (request: PageRequest) => PageRequest,
  following: (answer: PageAnswer, request: PageRequest, records: readonly unknown[]) => PageRequest | undefined,
): Paginator {
  const stops = options.stop ?? kind.stops;
  // Any condition that holds ends the read; a value one that cannot be read (a missing `has_more`,
  // a `total` that is not a number) is a changed answer, reported rather than taken as the end.
  const stopped = (answer: PageAnswer, records: readonly unknown[], read: number) => {
    let unreadable: MissingPagingValue | undefined;
    for (const stop of stops) {
      if (stop === 'empty-page' && records.length === 0) return true;
      if (stop === 'short-page' && records.length < (options.pageSize?.value ?? 0)) return true;
      if (typeof stop === 'object' && 'hasMore' in stop) {
        const more = valueAt(answer.data, stop.hasMore);
        if (more === false) return true;
        if (more !== true) unreadable ??= new MissingPagingValue(stop.hasMore, 'no true or false');
      }
      if (typeof stop === 'object' && 'total' in stop) {
        const value = valueAt(answer.data, stop.total);
        const total = typeof value === 'number' || (typeof value === 'string' && value !== '') ? Number(value) : NaN;
        if (!Number.isFinite(total)) unreadable ??= new MissingPagingValue(stop.total, 'no number');
        else if (read >= total) return true;
      }
    }
    if (unreadable) throw unreadable;
    return false;
  };
  return {
    kind: kind.name,
    recordsPath: options.records,
    recordKey: options.recordKey,
    maxPages: options.maxPages,
    maxRecords: options.maxRecords,
    maxMs: options.maxMs,
    first: (request) => first(sized(request, options.pageSize)),
    records: (answer) => {
      const records = valueAt(answer.data, options.records);
      return Array.isArray(records) ? records : undefined;
    },
    next: (answer, request, records, read) =>
      stopped(answer, records, read) ? undefined : following(answer, request, records),
    problems: () => {
      const problems = [...kind.problems];
      if (typeof options.records !== 'string') problems.push("records must be a dotted path ('' for the whole answer)");
      else if (options.records.split('.').some((part, _index, parts) => part === '' && parts.length > 1))
        problems.push(`records: '${options.records}' has an empty step`);
      const size = options.pageSize;
      if (size) {
        if (!size.param) problems.push('pageSize needs the parameter it is sent as');
        if (!(Number.isInteger(size.value) && size.value >= 1))
          problems.push('pageSize.value must be a whole number of at least 1');
        if (size.max !== undefined && size.value > size.max)
          problems.push(`pageSize.value ${size.value} is over its cap of ${size.max}`);
      }
      for (const stop of stops) {
        if (stop === 'short-page' && !size) problems.push("stop 'short-page' needs a pageSize");
        if (typeof stop === 'object' && !Object.values(stop)[0])
          problems.push(`stop ${JSON.stringify(stop)} needs a path`);
      }
      // A cursor, Link or next URL ends the read when it is absent; an offset or a page number never runs out.
      if (!kind.followsLink && stops.length === 0)
        problems.push(
          "no stop condition can fire: give stop one of 'empty-page', 'short-page', { hasMore }, { total }",
        );
      for (const limit of ['maxPages', 'maxRecords', 'maxMs'] as const) {
        const value = options[limit];
        if (value !== undefined && !(value > 0)) problems.push(`${limit} must be more than zero`);
      }
      if (options.answer !== undefined) problems.push(...answerProblems(options, stops, kind.reads ?? {}));
      return problems;
    },
  };
}

/** The paths the paginator reads that its declared answer does not have. */
function answerProblems(
  options: PagedOptions,
  stops: readonly StopWhen[],
  reads: Record<string, ReadFrom | undefined>,
): string[] {
  const answer = options.answer;
  if (!(answer instanceof z.ZodType)) return ['answer must be a zod schema of the page'];
  const problems: string[] = [];
  const paths: [string, string][] = [['records', options.records]];
  for (const [name, from] of Object.entries(reads)) if (typeof from === 'string') paths.push([name, from]);
  for (const stop of stops) if (typeof stop === 'object') paths.push(Object.entries(stop)[0] as [string, string]);
  for (const [name, path] of paths) {
    if (typeof path !== 'string') continue;
    const found = schemaAt(answer, path);
    if (found === undefined) problems.push(`${name}: '${path}' is not in the declared answer`);
    else if (name === 'records' && !(found instanceof z.ZodArray))
      problems.push(`records: '${path}' is not a list in the declared answer`);
  }
  return problems;
}

/** The schema at a dotted path of an object schema ('' the whole), through optional, nullable and default. */
function schemaAt(schema: z.ZodType, path: string): z.ZodType | undefined {
  let current: z.ZodType | undefined = unwrapped(schema);
  for (const key of path === '' ? [] : path.split('.')) {
    if (!(current instanceof z.ZodObject)) return undefined;
    const shape = current.shape as Record<string, z.ZodType>;
    current = Object.hasOwn(shape, key) ? unwrapped(shape[key]!) : undefined;
  }
  return current;
}

function unwrapped(schema: z.ZodType): z.ZodType {
  let current = schema;
  while (current instanceof z.ZodOptional || current instanceof z.ZodNullable || current instanceof z.ZodDefault)
    current = current.unwrap() as z.ZodType;
  return current;
}

/** A cursor read from the answer (or a header) and sent back; the read ends when none comes. */
export function cursorPaginator(options: CursorOptions): Paginator {
  const { from, to, initial } = options.cursor ?? ({} as Partial<CursorOptions['cursor']>);
  const problems: string[] = [];
  if (!from || (typeof from === 'object' && !from.header)) problems.push('cursor.from needs a path or a header');
  if (!to || !Object.values(to)[0]) problems.push('cursor.to needs where the cursor goes: query, header, body or path');
  else if ('path' in to && initial === undefined) problems.push('a cursor sent in the path needs an initial value');
  return declared(
    options,
    { name: 'cursor', stops: [], followsLink: true, problems, reads: { 'cursor.from': from } },
    (request) => (initial === undefined ? request : withValue(request, to!, initial)),
    (answer, request) => {
      const cursor = read(answer, from!);
      return typeof cursor === 'string' && cursor !== '' ? withValue(request, to!, cursor) : undefined;
    },
  );
}

/** An offset moved on by the records read, with a limit. */
export function offsetPaginator(options: OffsetOptions): Paginator {
  const { param, initial = 0 } = options.offset ?? ({} as Partial<OffsetOptions['offset']>);
  const problems = param ? [] : ['offset needs the parameter it is sent as'];
  if (!options.pageSize) problems.push('an offset paginator needs a pageSize (the limit)');
  return declared(
    options,
    { name: 'offset', stops: ['empty-page'], followsLink: false, problems },
    (request) => withValue(request, { query: param! }, initial),
    (_answer, request, records) =>
      withValue(request, { query: param! }, Number(request.query?.[param!] ?? initial) + records.length),
  );
}

/** A page number counted up from `initial`. */
export function pageNumberPaginator(options: PageNumberOptions): Paginator {
  const { param, initial = 1 } = options.page ?? ({} as Partial<PageNumberOptions['page']>);
  return declared(
    options,
    {
      name: 'page-number',
      stops: ['empty-page'],
      followsLink: false,
      problems: param ? [] : ['page needs the parameter it is sent as'],
    },
    (request) => withValue(request, { query: param! }, initial),
    (_answer, request) => withValue(request, { query: param! }, Number(request.query?.[param!] ?? initial) + 1),
  );
}

/** The next page's URL read from the answer (or a header); the read ends when none comes. */
export function nextUrlPaginator(options: NextUrlOptions): Paginator {
  const from = options.next;
  const problems = !from || (typeof from === 'object' && !from.header) ? ['next needs a path or a header'] : [];
  return declared(
    options,
    { name: 'next-url', stops: [], followsLink: true, problems, reads: { next: from } },
    (request) => request,
    (answer, request) => {
      const url = read(answer, from);
      return typeof url === 'string' && url !== '' ? { method: request.method, path: request.path, url } : undefined;
    },
  );
}

/** The RFC 8288 `Link` header's `rel="next"` target; the read ends when none comes. */
export function linkHeaderPaginator(options: PagedOptions): Paginator {
  return declared(
    options,
    { name: 'link-header', stops: [], followsLink: true, problems: [] },
    (request) => request,
    (answer, request) => {
      const url = nextLink(answer.header('link'));
      return url === undefined ? undefined : { method: request.method, path: request.path, url };
    },
  );
}

/** The target of the `rel="next"` link of a `Link` header value (RFC 8288), if any. */
export function nextLink(header: string | null): string | undefined {
  if (!header) return undefined;
  // Linear: each link is `<target>` then parameters up to the next `<`.
  for (const match of header.matchAll(/<([^>]*)>([^<]*)/g)) {
    const rel = /;\s*rel\s*=\s*"?([^";,]*)"?/i.exec(match[2]!);
    if (rel && rel[1]!.toLowerCase().split(/\s+/).includes('next')) return match[1];
  }
  return undefined;
}
