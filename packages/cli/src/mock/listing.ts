import type { Method, Parameter, Schema } from '../openapi-document.js';
import { propertiesOf } from './records.js';

/**
 * How a list operation of a document pages, read from the document alone: where its records
 * are in the answer, how a request says which page it wants (a cursor, an offset, a page
 * number) and how the answer says that another follows (a next cursor in the body or a header,
 * an RFC 8288 `Link` header, a next URL, `has_more`, a total). A connector's declared paginator
 * reads the API the document describes; the stand-in serves what the document describes, so
 * the one reads the other with no setting of its own. Names are compared without case, `_`,
 * `-` or `.`: `next_cursor`, `nextCursor` and `next-cursor` are one.
 */

/** Where a request says which page it wants. A cursor's `first` is the path value that asks for the first page. */
export type Position =
  | { kind: 'cursor'; in: 'query' | 'header' | 'path' | 'body'; name: string; first?: string }
  | { kind: 'offset'; name: string }
  | { kind: 'page'; name: string; first: number };

/** How an answer says that another page follows. `count`: the client counts (an offset or a page number). */
export type NextSignal =
  | { kind: 'cursor'; path: string; absent: 'omit' | 'null' | 'empty' }
  | { kind: 'cursor-header'; name: string }
  | { kind: 'link' }
  | { kind: 'next-url'; path: string; absent: 'omit' | 'null' | 'empty' }
  | { kind: 'count' };

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
  next: NextSignal;
  /** The page size parameter, its default and its cap (the schema's maximum, else 1000). */
  pageSize: { param?: string; default: number; max: number };
  hasMore?: string;
  total?: string;
  totalPages?: string;
  filters: TimeFilter[];
  /** The sort direction parameter and the values meaning newest first; without it, oldest first. */
  order?: { param: string; newestFirst: string[]; default: 'asc' | 'desc' };
}

const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

const RECORDS = [
  'data',
  'items',
  'results',
  'records',
  'entries',
  'values',
  'list',
  'elements',
  'content',
  'hits',
  'rows',
];
const SIZE = ['limit', 'pagesize', 'perpage', 'size', 'count', 'maxresults', 'top', 'take', 'pagelimit', 'maxitems'];
const OFFSET = ['offset', 'skip', 'start', 'startindex'];
const PAGE = ['page', 'pagenumber', 'pagenum', 'pageindex', 'pageno'];
const CURSOR_PARAM = ['cursor', 'pagetoken', 'nexttoken', 'continuationtoken', 'continuation', 'pagecursor', 'after'];
const NEXT_CURSOR = ['nextcursor', 'nextpagetoken', 'nexttoken', 'continuationtoken', 'endcursor', 'cursor', 'next'];
const NEXT_URL = ['nexturl', 'nextpageurl', 'nextlink', 'odatanextlink', 'nexthref', 'nextpage', 'next'];
const HAS_MORE = ['hasmore', 'more', 'hasnext', 'hasnextpage', 'moreresults'];
const TOTAL = ['total', 'totalcount', 'totalresults', 'totalitems', 'totalrecords', 'totalsize'];
const TOTAL_PAGES = ['totalpages', 'pagecount', 'pages'];
const ORDER = ['direction', 'order', 'sortorder', 'sortdirection', 'sortdir', 'dir', 'sort'];
const AFTER = /(after|since|from|gt|gte|min|newerthan)\]?$/i;
const BEFORE = /(before|until|to|lt|lte|max|olderthan)\]?$/i;
const DESCENDING = /^(desc|descending|newest|newestfirst|latest|recent)$/;
const ASCENDING = /^(asc|ascending|oldest|oldestfirst)$/;

function typeOf(schema: Schema | undefined): string | undefined {
  const type = schema?.type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) return type.find((entry) => entry !== 'null') as string | undefined;
  if (schema?.properties || schema?.allOf || schema?.oneOf) return 'object';
  if (schema?.items) return 'array';
  return undefined;
}

const nullable = (schema: Schema) =>
  schema.nullable === true || (Array.isArray(schema.type) && schema.type.includes('null'));

/** A field of the answer (not the records) by its normal name, at most one object deep: its path and schema. */
function field(
  answer: Schema,
  names: readonly string[],
  test: (schema: Schema, path: string[]) => boolean,
  skip: string,
): { path: string; schema: Schema } | undefined {
  const levels: Array<[string[], Schema]> = [[[], answer]];
  for (const [name, schema] of Object.entries(propertiesOf(answer)))
    if (name !== skip && typeOf(schema) === 'object') levels.push([[name], schema]);
  for (const wanted of names)
    for (const [path, schema] of levels)
      for (const [name, property] of Object.entries(propertiesOf(schema))) {
        if (path.length === 0 && name === skip) continue;
        if (normal(name) === wanted && property && test(property, [...path, name]))
          return { path: [...path, name].join('.'), schema: property };
      }
  return undefined;
}

const absence = (schema: Schema, required: boolean) => (nullable(schema) ? 'null' : required ? 'empty' : 'omit');

function isRequired(answer: Schema, path: string): boolean {
  let schema: Schema | undefined = answer;
  const steps = path.split('.');
  for (const [index, step] of steps.entries()) {
    const required = Array.isArray(schema?.required) ? (schema.required as string[]) : [];
    if (index === steps.length - 1) return required.includes(step);
    schema = propertiesOf(schema ?? {})[step];
  }
  return false;
}

/** The records of an answer: the answer itself when it is a list, else its list of objects (by name first). */
function recordsOf(answer: Schema): { path: string; record: Schema } | undefined {
  if (typeOf(answer) === 'array') return { path: '', record: (answer.items ?? {}) as Schema };
  if (typeOf(answer) !== 'object') return undefined;
  const lists = Object.entries(propertiesOf(answer)).filter(
    ([, schema]) => typeOf(schema) === 'array' && typeOf(schema.items as Schema | undefined) === 'object',
  );
  const found = lists.find(([name]) => RECORDS.includes(normal(name))) ?? lists[0];
  return found ? { path: found[0], record: found[1].items as Schema } : undefined;
}

const named = (parameters: Parameter[], names: readonly string[], test: (parameter: Parameter) => boolean) =>
  names
    .map((name) => parameters.find((parameter) => normal(parameter.name) === name && test(parameter)))
    .find((parameter) => parameter !== undefined);

const integer = (parameter: Parameter) => ['integer', 'number'].includes(typeOf(parameter.schema) ?? '');
const instantFormat = (schema: Schema | undefined) => schema?.format === 'date-time' || schema?.format === 'date';

/** A cursor parameter: a text (a date is a filter, not a cursor) in the query, a header, the path or the JSON body. */
function cursorParameter(
  parameters: Parameter[],
  body: Schema | undefined,
): Extract<Position, { kind: 'cursor' }> | undefined {
  const cursor = named(
    parameters.map((parameter) => ({ ...parameter, name: parameter.name.replace(/^x-/i, '') })),
    CURSOR_PARAM,
    (parameter) => parameter.in !== 'cookie' && !integer(parameter) && !instantFormat(parameter.schema),
  );
  if (cursor) {
    const original = parameters.find(
      (parameter) => parameter.in === cursor.in && parameter.name.replace(/^x-/i, '') === cursor.name,
    )!;
    const first = original.schema?.default ?? original.schema?.example;
    return {
      kind: 'cursor',
      in: original.in as 'query' | 'header' | 'path',
      name: original.name,
      ...(original.in === 'path' ? { first: typeof first === 'string' ? first : 'first' } : {}),
    };
  }
  const property = Object.keys(body ? propertiesOf(body) : {}).find((name) => CURSOR_PARAM.includes(normal(name)));
  return property === undefined ? undefined : { kind: 'cursor', in: 'body', name: property };
}

function timeFilters(parameters: Parameter[], used: Set<string>, record: Schema): TimeFilter[] {
  const properties = Object.entries(propertiesOf(record));
  const timed = properties.some(
    ([name, schema]) =>
      instantFormat(schema) ||
      (['integer', 'number'].includes(typeOf(schema) ?? '') &&
        /(^|_)(at|time|timestamp|created|updated|modified)$|[a-z](At|Time)$/.test(name)),
  );
  if (!timed) return [];
  return parameters.flatMap((parameter): TimeFilter[] => {
    if (parameter.in !== 'query' || used.has(parameter.name)) return [];
    const bound = AFTER.test(parameter.name) ? 'after' : BEFORE.test(parameter.name) ? 'before' : undefined;
    if (!bound) return [];
    if (instantFormat(parameter.schema)) return [{ param: parameter.name, bound, unit: 'iso' }];
    if (
      integer(parameter) &&
      /(since|after|before|until|time|date|at|ts)\b|(Since|After|Before|Until)$/.test(parameter.name)
    )
      return [{ param: parameter.name, bound, unit: /ms|milli/i.test(parameter.name) ? 'ms' : 's' }];
    return [];
  });
}

function orderOf(parameters: Parameter[]): Listing['order'] {
  for (const wanted of ORDER) {
    const parameter = parameters.find((entry) => entry.in === 'query' && normal(entry.name) === wanted);
    const values = Array.isArray(parameter?.schema?.enum) ? (parameter.schema.enum as unknown[]).map(String) : [];
    const newestFirst = values.filter((value) => DESCENDING.test(normal(value)));
    if (!parameter || newestFirst.length === 0 || !values.some((value) => ASCENDING.test(normal(value)))) continue;
    const fallback = parameter.schema?.default;
    return {
      param: parameter.name,
      newestFirst,
      default: typeof fallback === 'string' && newestFirst.includes(fallback) ? 'desc' : 'asc',
    };
  }
  return undefined;
}

/** The operation's paging, or undefined when it is not a paged list the document describes. */
export function listingOf(
  method: Method,
  parameters: Parameter[],
  answer: Schema | undefined,
  responseHeaders: readonly string[],
  body: Schema | undefined,
): Listing | undefined {
  if (!answer || (method !== 'get' && method !== 'post')) return undefined;
  const found = recordsOf(answer);
  if (!found) return undefined;
  const query = parameters.filter((parameter) => parameter.in === 'query');
  const size = named(query, SIZE, integer);
  const offset = named(query, OFFSET, integer);
  const page = named(query, PAGE, integer);
  const cursor = cursorParameter(parameters, method === 'post' ? body : undefined);
  const headers = responseHeaders.map((name) => name.toLowerCase());
  const text = (schema: Schema) => typeOf(schema) === 'string';
  const urlField = field(
    answer,
    NEXT_URL,
    (schema, path) =>
      text(schema) &&
      (normal(path.at(-1)!) !== 'next' ||
        /^(uri|url|uri-reference|iri)$/.test(String(schema.format ?? '')) ||
        (path.length > 1 && /links$/.test(normal(path[0]!)))),
    found.path,
  );
  const cursorField = field(
    answer,
    NEXT_CURSOR,
    (schema, path) => text(schema) && path.join('.') !== urlField?.path,
    found.path,
  );
  const cursorHeader = headers.find((name) =>
    /^(x-)?(next-?(page-?)?(cursor|token)|continuation(-token)?)$/.test(name),
  );

  let next: NextSignal;
  if (headers.includes('link')) next = { kind: 'link' };
  else if (urlField)
    next = {
      kind: 'next-url',
      path: urlField.path,
      absent: absence(urlField.schema, isRequired(answer, urlField.path)),
    };
  else if (cursor && cursorField)
    next = {
      kind: 'cursor',
      path: cursorField.path,
      absent: absence(cursorField.schema, isRequired(answer, cursorField.path)),
    };
  else if (cursor && cursorHeader) next = { kind: 'cursor-header', name: cursorHeader };
  else if (offset || page) next = { kind: 'count' };
  else return undefined;

  // A Link or a next URL carries the page asked for in its query: a cursor, a page number or an offset.
  const queryCursor = cursor?.in === 'query' ? cursor : undefined;
  let position: Position;
  if (next.kind === 'cursor' || next.kind === 'cursor-header') position = cursor!;
  else if (next.kind === 'count' || !queryCursor)
    position = page
      ? { kind: 'page', name: page.name, first: page.schema?.minimum === 0 ? 0 : 1 }
      : offset
        ? { kind: 'offset', name: offset.name }
        : (queryCursor ?? { kind: 'cursor', in: 'query', name: 'cursor' });
  else position = queryCursor;

  const max = typeof size?.schema?.maximum === 'number' ? size.schema.maximum : 1000;
  const fallback = typeof size?.schema?.default === 'number' ? size.schema.default : Math.min(20, max);
  const used = new Set([size?.name, offset?.name, page?.name, cursor?.name].filter((name) => name !== undefined));
  const hasMore = field(answer, HAS_MORE, (schema) => typeOf(schema) === 'boolean', found.path)?.path;
  const total = field(answer, TOTAL, (schema) => integer({ name: '', in: 'query', schema }), found.path)?.path;
  const totalPages = field(
    answer,
    TOTAL_PAGES,
    (schema) => integer({ name: '', in: 'query', schema }),
    found.path,
  )?.path;
  const order = orderOf(query);
  return {
    records: found.path,
    record: found.record,
    answer,
    position,
    next,
    pageSize: { ...(size ? { param: size.name } : {}), default: fallback, max },
    ...(hasMore ? { hasMore } : {}),
    ...(total ? { total } : {}),
    ...(totalPages ? { totalPages } : {}),
    filters: timeFilters(query, used, found.record),
    ...(order ? { order } : {}),
  };
}

/** One line saying how a list operation pages, for the author reading what the stand-in serves. */
export function describeListing(listing: Listing): string {
  const { position, next, pageSize } = listing;
  const asked =
    position.kind === 'cursor'
      ? `cursor in ${position.in}.${position.name}`
      : position.kind === 'offset'
        ? `offset in query.${position.name}`
        : `page number in query.${position.name} from ${position.first}`;
  const told =
    next.kind === 'cursor'
      ? `next cursor at ${next.path}`
      : next.kind === 'cursor-header'
        ? `next cursor in header ${next.name}`
        : next.kind === 'link'
          ? 'Link rel="next"'
          : next.kind === 'next-url'
            ? `next URL at ${next.path}`
            : 'counted by the client';
  const filters = listing.filters.map((filter) => `${filter.param} (${filter.bound})`).join(', ');
  return [
    `${asked}, ${told}`,
    `${pageSize.param ?? 'page size'} ${pageSize.default} (max ${pageSize.max})`,
    ...(filters ? [`filters ${filters}`] : []),
    ...(listing.order ? [`${listing.order.param} default ${listing.order.default}`] : []),
  ].join('; ');
}
