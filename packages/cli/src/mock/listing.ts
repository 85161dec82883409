import type { Parameter, Schema } from '../openapi-document.js';
import { type Absent, type AnswerField, type ListOperation, type ListPaging, listPagingOf } from '../list-paging.js';
import { incrementalOf } from '../openapi-incremental.js';
import { bareName } from '../paging-names.js';
import { isNumber } from '../schema-shape.js';
import { propertiesOf, TIME_NAME } from './records.js';

/**
 * How the stand-in serves a list operation's pages, from how its document says it pages
 * (list-paging.ts): where a request says which page it wants, every way the answer says that
 * another follows, the page size, and the filters and sort direction it honours. A connector's
 * declared paginator reads the API the document describes; the stand-in serves what the
 * document describes, so the one reads the other with no setting of its own.
 */

/** Where a request says which page it wants. A cursor's `first` is the path value that asks for the first page. */
export type Position =
  | { kind: 'cursor'; in: 'query' | 'header' | 'path' | 'body'; name: string; first?: string }
  | { kind: 'offset'; name: string }
  | { kind: 'page'; name: string; first: number };

/**
 * Every way the answer says that another page follows, as the document describes them: each is
 * written, so a paginator reading any one of them reads the stand-in. None: the client counts
 * (an offset or a page number, until an empty or short page, `has_more` or the total).
 */
export interface Signals {
  cursor?: { path: string; absent: Absent };
  cursorHeader?: string;
  link?: boolean;
  nextUrl?: { path: string; absent: Absent };
  hasMore?: string;
  total?: string;
  totalPages?: string;
}

/** A query parameter keeping records newer (`after`) or older (`before`) than an instant. */
export interface TimeFilter {
  param: string;
  bound: 'after' | 'before';
  /** How the instant is written: RFC 3339 text, unix seconds or milliseconds. */
  unit: 'iso' | 's' | 'ms';
}

export interface Listing {
  /** Where the records are in the answer: a dotted path, '' for the answer itself. */
  records: string;
  record: Schema;
  answer: Schema;
  position: Position;
  signals: Signals;
  /** The page size parameter, its default and its cap (the schema's maximum, else 1000). */
  pageSize: { param?: string; default: number; max: number };
  filters: TimeFilter[];
  /** The record's fields an incremental read goes by (openapi-incremental.ts): every record has them. */
  always: string[];
  /** The sort direction parameter and the values meaning newest first; without it, oldest first. */
  order?: { param: string; newestFirst: string[]; default: 'asc' | 'desc' };
}

const ORDER = ['direction', 'order', 'sortorder', 'sortdirection', 'sortdir', 'dir', 'sort'];
const AFTER = /(after|since|from|gt|gte|min|newerthan)\]?$/i;
const BEFORE = /(before|until|to|lt|lte|max|olderthan)\]?$/i;
const DESCENDING = /^(desc|descending|newest|newestfirst|latest|recent)$/;
const ASCENDING = /^(asc|ascending|oldest|oldestfirst)$/;

const instantFormat = (schema: Schema | undefined) => schema?.format === 'date-time' || schema?.format === 'date';

function timeFilters(parameters: readonly Parameter[], used: Set<string>, record: Schema): TimeFilter[] {
  const properties = Object.entries(propertiesOf(record));
  const timed = properties.some(
    ([name, schema]) => instantFormat(schema) || (isNumber(schema) && TIME_NAME.test(name)),
  );
  if (!timed) return [];
  return parameters.flatMap((parameter): TimeFilter[] => {
    if (parameter.in !== 'query' || used.has(parameter.name)) return [];
    const bound = AFTER.test(parameter.name) ? 'after' : BEFORE.test(parameter.name) ? 'before' : undefined;
    if (!bound) return [];
    if (instantFormat(parameter.schema)) return [{ param: parameter.name, bound, unit: 'iso' }];
    if (
      isNumber(parameter.schema) &&
      /(since|after|before|until|time|date|at|ts)\b|(Since|After|Before|Until)$/.test(parameter.name)
    )
      return [{ param: parameter.name, bound, unit: /ms|milli/i.test(parameter.name) ? 'ms' : 's' }];
    return [];
  });
}

function orderOf(parameters: readonly Parameter[]): Listing['order'] {
  for (const wanted of ORDER) {
    const parameter = parameters.find((entry) => entry.in === 'query' && bareName(entry.name) === wanted);
    const values = Array.isArray(parameter?.schema?.enum) ? (parameter.schema.enum as unknown[]).map(String) : [];
    const newestFirst = values.filter((value) => DESCENDING.test(bareName(value)));
    if (!parameter || newestFirst.length === 0 || !values.some((value) => ASCENDING.test(bareName(value)))) continue;
    const fallback = parameter.schema?.default;
    return {
      param: parameter.name,
      newestFirst,
      default: typeof fallback === 'string' && newestFirst.includes(fallback) ? 'desc' : 'asc',
    };
  }
  return undefined;
}

/** The signals of an answer field: where it is, and what stands there when there is no next page. */
const place = (field: AnswerField) => ({ path: field.path, absent: field.absent });

/** Where the stand-in reads the page asked for, and every way it says that another follows; undefined for a list that does not page. */
function servedPaging(found: ListPaging): { position: Position; signals: Signals } | undefined {
  const { cursor, offset, page } = found;
  const counted = {
    ...(found.hasMore ? { hasMore: found.hasMore.path } : {}),
    ...(found.total ? { total: found.total.path } : {}),
    ...(found.totalPages ? { totalPages: found.totalPages.path } : {}),
  };
  const urls = {
    ...(found.link ? { link: true } : {}),
    ...(found.nextUrl ? { nextUrl: place(found.nextUrl) } : {}),
  };
  // An offset or a page number the client counts on; an offset first, as a scaffold declares it.
  const counting: Position | undefined = offset
    ? { kind: 'offset', name: offset.name }
    : page
      ? { kind: 'page', name: page.parameter.name, first: page.first }
      : undefined;
  if (cursor && (found.nextCursor || found.cursorHeader)) {
    const signals: Signals = {
      ...(found.nextCursor ? { cursor: place(found.nextCursor) } : {}),
      ...(found.cursorHeader ? { cursorHeader: found.cursorHeader.toLowerCase() } : {}),
      // A Link or a next URL carries the cursor in its query: only a cursor sent in the query can go there.
      ...(cursor.in === 'query' ? urls : {}),
      ...counted,
    };
    return { position: { kind: 'cursor', ...cursor }, signals };
  }
  if (urls.link || urls.nextUrl) {
    // Without a parameter of the document's own, the URL carries the stand-in's `cursor`.
    const position: Position = (cursor?.in === 'query' ? { kind: 'cursor', ...cursor } : undefined) ??
      counting ?? { kind: 'cursor', in: 'query', name: 'cursor' };
    return { position, signals: { ...urls, ...counted } };
  }
  return counting ? { position: counting, signals: counted } : undefined;
}

/** The operation's paging, or undefined when it is not a paged list the document describes. */
export function listingOf(list: ListOperation): Listing | undefined {
  const { method, answer } = list;
  if (!answer || (method !== 'get' && method !== 'post')) return undefined;
  const found = listPagingOf(list);
  const served = found.records.many ? servedPaging(found) : undefined;
  if (!served) return undefined;
  const { pageSize: size, offset, page, cursor } = found;
  const record = found.records.item ?? {};
  const max = typeof size?.schema?.maximum === 'number' ? size.schema.maximum : 1000;
  const fallback = typeof size?.schema?.default === 'number' ? size.schema.default : Math.min(20, max);
  const used = new Set(
    [size?.name, offset?.name, page?.parameter.name, cursor?.name].filter((name) => name !== undefined),
  );
  const query = list.parameters.filter((parameter) => parameter.in === 'query');
  const order = orderOf(query);
  const incremental = incrementalOf(list, found.records);
  return {
    records: found.records.property ?? '',
    record,
    answer,
    ...served,
    pageSize: { ...(size ? { param: size.name } : {}), default: fallback, max },
    filters: timeFilters(query, used, record),
    always: incremental ? [incremental.cursorField, incremental.tieBreaker ?? 'id'] : [],
    ...(order ? { order } : {}),
  };
}

/** One line saying how a list operation pages, for the author reading what the stand-in serves. */
export function describeListing(listing: Listing): string {
  const { position, pageSize } = listing;
  const asked =
    position.kind === 'cursor'
      ? `cursor in ${position.in}.${position.name}`
      : position.kind === 'offset'
        ? `offset in query.${position.name}`
        : `page number in query.${position.name} from ${position.first}`;
  const { signals } = listing;
  const told = [
    signals.cursor ? `next cursor at ${signals.cursor.path}` : undefined,
    signals.cursorHeader ? `next cursor in header ${signals.cursorHeader}` : undefined,
    signals.link ? 'Link rel="next"' : undefined,
    signals.nextUrl ? `next URL at ${signals.nextUrl.path}` : undefined,
    signals.hasMore ? `${signals.hasMore} (has more)` : undefined,
    signals.total ? `${signals.total} (total)` : undefined,
  ]
    .filter((part) => part !== undefined)
    .join(', ');
  const filters = listing.filters.map((filter) => `${filter.param} (${filter.bound})`).join(', ');
  return [
    `${asked}, ${told || 'counted by the client'}`,
    `${pageSize.param ?? 'page size'} ${pageSize.default} (max ${pageSize.max})`,
    ...(filters ? [`filters ${filters}`] : []),
    ...(listing.order ? [`${listing.order.param} default ${listing.order.default}`] : []),
  ].join('; ');
}
