import type { Method, Parameter, Schema } from '../openapi-document.js';
import {
  bareName,
  CURSOR_NAMES,
  HAS_MORE_NAMES,
  NEXT_CURSOR_NAMES,
  NEXT_URL_NAMES,
  OFFSET_NAMES,
  PAGE_NAMES,
  PAGE_SIZE_NAMES,
  RECORD_NAMES,
  TOTAL_NAMES,
} from '../paging-names.js';
import { propertiesOf, TIME_NAME } from './records.js';

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

/** What is written where a next cursor or URL is absent: nothing, `null`, or '' (a field that is required and not nullable). */
export type Absent = 'omit' | 'null' | 'empty';

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
  /** The sort direction parameter and the values meaning newest first; without it, oldest first. */
  order?: { param: string; newestFirst: string[]; default: 'asc' | 'desc' };
}

const TOTAL_PAGES = ['totalpages', 'pagecount', 'pages'];
/** How deep in the answer's envelope its paging fields are looked for (`_links.next.href` is 3). */
const FIELD_DEPTH = 3;
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

/** Every field of the answer outside its records, with its dotted path, a few objects deep. */
function fieldsOf(answer: Schema, records: string): Array<{ path: string; name: string; schema: Schema }> {
  const found: Array<{ path: string; name: string; schema: Schema }> = [];
  const walk = (at: Schema, prefix: string, depth: number) => {
    for (const [name, property] of Object.entries(propertiesOf(at))) {
      const path = `${prefix}${name}`;
      if (name.includes('.') || path === records || !property || typeof property !== 'object') continue;
      found.push({ path, name: bareName(name), schema: property });
      if (depth + 1 < FIELD_DEPTH && typeOf(property) === 'object') walk(property, `${path}.`, depth + 1);
    }
  };
  walk(answer, '', 0);
  return found;
}

const absence = (schema: Schema, required: boolean): Absent =>
  nullable(schema) ? 'null' : required ? 'empty' : 'omit';

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
  const found = lists.find(([name]) => RECORD_NAMES.includes(bareName(name))) ?? lists[0];
  return found ? { path: found[0], record: found[1].items as Schema } : undefined;
}

const URI_FORMAT = /^(uri|url|uri-reference|iri|iri-reference)$/;

/** The first page's number: the parameter's default, else its minimum, else 1. */
const firstPage = (page: Parameter) =>
  [page.schema?.default, page.schema?.minimum].find((value): value is number => Number.isInteger(value)) ?? 1;

const named = (parameters: Parameter[], names: readonly string[], test: (parameter: Parameter) => boolean) =>
  names
    .map((name) => parameters.find((parameter) => bareName(parameter.name) === name && test(parameter)))
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
    CURSOR_NAMES,
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
  const property = Object.keys(body ? propertiesOf(body) : {}).find((name) => CURSOR_NAMES.includes(bareName(name)));
  return property === undefined ? undefined : { kind: 'cursor', in: 'body', name: property };
}

function timeFilters(parameters: Parameter[], used: Set<string>, record: Schema): TimeFilter[] {
  const properties = Object.entries(propertiesOf(record));
  const timed = properties.some(
    ([name, schema]) =>
      instantFormat(schema) || (['integer', 'number'].includes(typeOf(schema) ?? '') && TIME_NAME.test(name)),
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
  const size = named(query, PAGE_SIZE_NAMES, integer);
  const offset = named(query, OFFSET_NAMES, integer);
  const page = named(query, PAGE_NAMES, integer);
  const cursor = cursorParameter(parameters, method === 'post' ? body : undefined);
  const headers = responseHeaders.map((name) => name.toLowerCase());
  const fields = fieldsOf(answer, found.path);
  const text = (schema: Schema) => typeOf(schema) === 'string';
  const withName = (names: readonly string[], test: (schema: Schema) => boolean) =>
    fields.find((entry) => names.includes(entry.name) && test(entry.schema));
  const urlField = fields.find(({ path, name, schema }) => {
    if (!text(schema) || !NEXT_URL_NAMES.includes(name)) return false;
    // `href` counts inside a `next` link object (HAL); a bare `next` is a URL unless a cursor goes back.
    if (name === 'href') return bareName(path.split('.').at(-2) ?? '') === 'next';
    return URI_FORMAT.test(String(schema.format ?? '')) || name !== 'next' || !cursor;
  });
  const cursorFields = fields.filter(
    (entry) => text(entry.schema) && NEXT_CURSOR_NAMES.includes(entry.name) && entry.path !== urlField?.path,
  );
  // `next_page_token` for `page_token`; else a name that says next; else a cursor or `after` in a paging object.
  const cursorField = cursor
    ? (cursorFields.find((entry) => entry.name === `next${bareName(cursor.name)}`) ??
      cursorFields.find((entry) => entry.name.startsWith('next')) ??
      cursorFields.find((entry) => entry.path.includes('.')))
    : undefined;
  const cursorHeader = headers.find((name) =>
    /^(x-)?(next-?(page-?)?(cursor|token)|continuation(-token)?)$/.test(name),
  );
  const numeric = (schema: Schema) => integer({ name: '', in: 'query', schema });
  const hasMore = withName(HAS_MORE_NAMES, (schema) => typeOf(schema) === 'boolean')?.path;
  const total = withName(TOTAL_NAMES, numeric)?.path;
  const totalPages = withName(TOTAL_PAGES, numeric)?.path;
  const counted = {
    ...(hasMore ? { hasMore } : {}),
    ...(total ? { total } : {}),
    ...(totalPages ? { totalPages } : {}),
  };
  const urls = {
    ...(headers.includes('link') ? { link: true } : {}),
    ...(urlField
      ? { nextUrl: { path: urlField.path, absent: absence(urlField.schema, isRequired(answer, urlField.path)) } }
      : {}),
  };

  // An offset or a page number the client counts on; an offset first, as a scaffold declares it.
  const counting: Position | undefined = offset
    ? { kind: 'offset', name: offset.name }
    : page
      ? { kind: 'page', name: page.name, first: firstPage(page) }
      : undefined;
  let position: Position;
  let signals: Signals;
  if (cursor && (cursorField || cursorHeader)) {
    position = cursor;
    signals = {
      ...(cursorField
        ? {
            cursor: {
              path: cursorField.path,
              absent: absence(cursorField.schema, isRequired(answer, cursorField.path)),
            },
          }
        : {}),
      ...(cursorHeader ? { cursorHeader } : {}),
      // A Link or a next URL carries the cursor in its query: only a cursor sent in the query can go there.
      ...(cursor.in === 'query' ? urls : {}),
      ...counted,
    };
  } else if (urls.link || urls.nextUrl) {
    // Without a parameter of the document's own, the URL carries the stand-in's `cursor`.
    position = (cursor?.in === 'query' ? cursor : undefined) ??
      counting ?? { kind: 'cursor', in: 'query', name: 'cursor' };
    signals = { ...urls, ...counted };
  } else if (counting) {
    position = counting;
    signals = counted;
  } else return undefined;

  const max = typeof size?.schema?.maximum === 'number' ? size.schema.maximum : 1000;
  const fallback = typeof size?.schema?.default === 'number' ? size.schema.default : Math.min(20, max);
  const used = new Set([size?.name, offset?.name, page?.name, cursor?.name].filter((name) => name !== undefined));
  const order = orderOf(query);
  return {
    records: found.path,
    record: found.record,
    answer,
    position,
    signals,
    pageSize: { ...(size ? { param: size.name } : {}), default: fallback, max },
    filters: timeFilters(query, used, found.record),
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
