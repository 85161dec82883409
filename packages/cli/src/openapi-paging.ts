import type { Parameter, Schema } from './openapi-document.js';
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
} from './paging-names.js';

/**
 * How a list operation of an OpenAPI document pages, read from its parameters and its answer's
 * schema: where the records are, which declared paginator of the SDK fits (a next URL in the
 * body or a `Link` header, a cursor sent back, an offset, a page number), its page size and
 * when it stops, and whether the list can be read incrementally (a date-time `*_after` filter
 * matching a date-time field of the record). Only the scaffold reads a document this way; a
 * connector declares what was found and never guesses at run time.
 */

/** What the detection reads of one list operation. */
export interface ListOperation {
  path: string;
  /** The operation's parameters, its path item's included. */
  parameters: readonly Parameter[];
  /** The JSON schema of its success answer. */
  answer: Schema | undefined;
  /** The names of the headers its success answer declares. */
  headers: readonly string[];
}

/** Where a list answer keeps its records. */
export interface Records {
  /** The envelope's property holding them (the list, or the one record); undefined when the answer is the list or the record. */
  property: string | undefined;
  item: Schema | undefined;
  many: boolean;
}

/** A paginator of the SDK with the options to declare it with (`cursorPaginator(options)`...). */
export type DetectedPaginator =
  | {
      kind: 'cursor';
      options: {
        records: string;
        cursor: { from: ReadFrom; to: { query: string } | { header: string } };
        stop?: Stop[];
      };
    }
  | { kind: 'offset'; options: { records: string; offset: { param: string }; pageSize: PageSize; stop?: Stop[] } }
  | { kind: 'page-number'; options: { records: string; page: { param: string; initial?: number }; stop?: Stop[] } }
  | { kind: 'next-url'; options: { records: string; next: ReadFrom } }
  | { kind: 'link-header'; options: { records: string } };

type ReadFrom = string | { header: string };
type Stop = { hasMore: string } | { total: string };
interface PageSize {
  param: string;
  value: number;
  max?: number;
}

/** Reading from a checkpoint on: the newer-than filter, the record's field it filters on, and the order to ask for. */
export interface DetectedIncremental {
  cursorField: string;
  /** The record's id field, when it is not `id`. */
  tieBreaker?: string;
  /** The query parameter asking for records newer than an instant. */
  query: string;
  /** How it writes the instant: ISO 8601 text, or seconds or milliseconds since the epoch. */
  format: 'iso' | 'unix' | 'unix-ms';
  /** Query values that make the list oldest first, when the document offers them. */
  sort?: Record<string, string>;
  order: 'oldest-first' | 'newest-first';
}

export interface ListPaging {
  records: Records;
  /** The paginator found; undefined when the document shows none (`missing` says what was looked for). */
  paginator?: DetectedPaginator;
  /** The query parameters the paginator sends: the read leaves them to it. */
  driven: string[];
  /** The page-size parameter the read sends, with the most it may be, when the paginator does not send it. */
  pageSize?: { param: string; value: number | undefined };
  /** One line saying how the list pages, or why no paginator was written. */
  summary: string;
  incremental?: DetectedIncremental;
}

const MAX_DEPTH = 3;

/** A name's words: `updatedAfter` and `updated_after` are `updated after`. */
const wordsOf = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

const CURSOR_PARAMS = new Set(CURSOR_NAMES);
const NEXT_CURSOR_FIELDS = new Set(NEXT_CURSOR_NAMES);
const NEXT_URL_FIELDS = new Set(NEXT_URL_NAMES);
const HAS_MORE_FIELDS = new Set(HAS_MORE_NAMES);
const TOTAL_FIELDS = new Set(TOTAL_NAMES);
const OFFSET_PARAMS = new Set(OFFSET_NAMES);
const PAGE_PARAMS = new Set(PAGE_NAMES);
const PAGE_SIZE_PARAMS = new Set(PAGE_SIZE_NAMES);
const NEWER_WORDS = new Set(['after', 'since', 'gt', 'gte', 'from', 'min', 'start']);
/** An integer filter is a time only after one of these: `from`, `start` or `min` may be an offset or a count. */
const NEWER_NUMBER_WORDS = new Set(['after', 'since', 'gt', 'gte']);
const UNIT_WORDS = new Set(['ms', 'millis', 'milliseconds', 'seconds', 'secs', 'unix', 'epoch', 'ts']);
const TIME_WORDS = new Set(['at', 'time', 'date', 'on', 'timestamp']);
const SORT_PARAMS = new Set(['sort', 'sortby', 'orderby', 'sortfield']);
const DIRECTION_PARAMS = new Set(['direction', 'order', 'sortdirection', 'sortorder', 'dir']);

const typeOf = (schema: Schema | undefined): string | undefined => {
  if (!schema) return undefined;
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null') as string | undefined;
  if (schema.properties) return 'object';
  if (schema.items) return 'array';
  return undefined;
};
const isNumber = (schema: Schema | undefined) => ['integer', 'number'].includes(typeOf(schema) ?? '');
const whole = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) ? value : undefined;

/**
 * An object schema's properties, and those it requires: an `allOf`'s parts merged, and of a
 * `oneOf` or `anyOf` only what every variant has (a record of any variant has it).
 */
export function propertiesOf(
  schema: Schema | undefined,
  depth = 0,
): { properties: Record<string, Schema>; required: Set<string> } {
  const none = { properties: {}, required: new Set<string>() };
  if (!schema || typeof schema !== 'object' || depth > MAX_DEPTH) return none;
  const properties: Record<string, Schema> = { ...((schema.properties ?? {}) as Record<string, Schema>) };
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  for (const part of Array.isArray(schema.allOf) ? (schema.allOf as Schema[]) : []) {
    const merged = propertiesOf(part, depth + 1);
    Object.assign(properties, merged.properties);
    for (const name of merged.required) required.add(name);
  }
  const variants = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (Array.isArray(variants) && variants.length > 0) {
    const each = variants.filter((variant) => typeOf(variant) !== 'null').map((part) => propertiesOf(part, depth + 1));
    for (const [name, property] of Object.entries(each[0]?.properties ?? {})) {
      if (each.every((variant) => name in variant.properties)) properties[name] ??= property;
      if (each.every((variant) => variant.required.has(name))) required.add(name);
    }
  }
  return { properties, required };
}

/**
 * Where a list answer keeps its records: the answer itself when it is an array, else a `data`,
 * `items`, `results` ... array, or the only array of a small envelope (`{ projects: [...], next }`).
 * An answer about one thing (a path ending in its id) is one record, arrays inside it or not.
 */
export function recordsOf(schema: Schema | undefined, path: string): Records {
  const one = oneRecord(schema);
  if (/\}\/?$/.test(path)) return one;
  if (schema?.type === 'array' || schema?.items)
    return { property: undefined, item: schema.items as Schema | undefined, many: true };
  const properties = Object.entries((schema?.properties ?? {}) as Record<string, Schema>);
  const arrays = properties.filter(([, property]) => property?.type === 'array');
  const found =
    arrays.find(([name]) => RECORD_NAMES.includes(name)) ??
    (arrays.length === 1 && properties.length <= 3 ? arrays[0] : undefined);
  return found ? { property: found[0], item: found[1].items as Schema | undefined, many: true } : one;
}

/** Where an answer about one thing keeps it: a small envelope's `data`, `result` or `record` object (`{ data: {...}, meta }`), else the answer itself. */
function oneRecord(schema: Schema | undefined): Records {
  const properties = Object.entries((schema?.properties ?? {}) as Record<string, Schema>);
  const envelope =
    properties.length <= 3
      ? properties.find(([name, property]) => ONE_RECORD_NAMES.includes(name) && typeOf(property) === 'object')
      : undefined;
  return envelope
    ? { property: envelope[0], item: envelope[1], many: false }
    : { property: undefined, item: schema, many: false };
}

const ONE_RECORD_NAMES = ['data', 'result', 'record'];

/** Every property of the answer outside the records, with its dotted path, a few levels down; names with a dot are left out. */
function fieldsOf(schema: Schema | undefined, records: string | undefined): Array<{ path: string; schema: Schema }> {
  const found: Array<{ path: string; schema: Schema }> = [];
  const walk = (at: Schema | undefined, prefix: string, depth: number) => {
    if (depth >= MAX_DEPTH) return;
    for (const [name, property] of Object.entries(propertiesOf(at).properties)) {
      const path = `${prefix}${name}`;
      if (name.includes('.') || path === records || !property || typeof property !== 'object') continue;
      found.push({ path, schema: property });
      if (typeOf(property) === 'object') walk(property, `${path}.`, depth + 1);
    }
  };
  walk(schema, '', 0);
  return found;
}

const lastName = (path: string) => path.split('.').at(-1)!;
const isUri = (schema: Schema) =>
  ['uri', 'url', 'uri-reference', 'iri', 'iri-reference'].includes(String(schema.format));

/** How a list operation pages, and whether it can be read incrementally (only when it pages: `ctx.pages` needs a paginator). */
export function detectPaging(list: ListOperation): ListPaging {
  const paging = pagingOf(list);
  const incremental = paging.paginator ? incrementalOf(list, paging.records) : undefined;
  return incremental ? { ...paging, incremental } : paging;
}

function pagingOf(list: ListOperation): ListPaging {
  const records = recordsOf(list.answer, list.path);
  const base = { records, driven: [] as string[] };
  if (!records.many) return { ...base, summary: 'one record: nothing to page' };
  const recordsPath = records.property ?? '';
  const query = list.parameters.filter((parameter) => parameter.in === 'query');
  const param = (names: Set<string>, accepts: (schema: Schema | undefined) => boolean = () => true) =>
    query.find((parameter) => names.has(bareName(parameter.name)) && accepts(parameter.schema));
  const fields = fieldsOf(list.answer, records.property);
  const field = (names: Set<string>, accepts: (schema: Schema) => boolean) =>
    fields.find((entry) => names.has(bareName(lastName(entry.path))) && accepts(entry.schema));

  const sizeParam = param(PAGE_SIZE_PARAMS, isNumber);
  const max = whole(sizeParam?.schema?.maximum);
  const sizeValue = max ?? whole(sizeParam?.schema?.default);
  const hasMore = field(HAS_MORE_FIELDS, (schema) => typeOf(schema) === 'boolean');
  const total = field(TOTAL_FIELDS, isNumber);
  // A cursor is text (an `after` that is an instant is a filter), sent in the query or a header (`X-Cursor`).
  const cursorParam = list.parameters.find(
    (parameter) =>
      (parameter.in === 'query' || parameter.in === 'header') &&
      CURSOR_PARAMS.has(bareName(parameter.name.replace(/^x-/i, ''))) &&
      (!parameter.schema || typeOf(parameter.schema) === 'string') &&
      !['date-time', 'date'].includes(String(parameter.schema?.format)),
  );
  const sized = (driven: string[]) => ({
    driven,
    ...(sizeParam ? { pageSize: { param: sizeParam.name, value: sizeValue } } : {}),
  });
  const size = sizeParam ? `, ${sizeValue ?? 'the default'} a page (${sizeParam.name})` : '';

  // A next URL in the body or a `Link` header: the provider says exactly where the next page is.
  const nextUrl = fields.find(({ path, schema }) => {
    const name = bareName(lastName(path));
    if (typeOf(schema) !== 'string' || !NEXT_URL_FIELDS.has(name)) return false;
    // `href` counts inside a `next` link object (HAL); a bare `next` string is a URL unless a cursor goes back.
    if (name === 'href') return bareName(path.split('.').at(-2) ?? '') === 'next';
    return isUri(schema) || name !== 'next' || !cursorParam;
  });
  if (nextUrl) {
    return {
      ...base,
      ...sized([]),
      paginator: { kind: 'next-url', options: { records: recordsPath, next: nextUrl.path } },
      summary: `the next page's URL is at \`${nextUrl.path}\`${size}; the read ends when it is absent`,
    };
  }
  const link = list.headers.find((name) => name.toLowerCase() === 'link');
  if (link) {
    return {
      ...base,
      ...sized([]),
      paginator: { kind: 'link-header', options: { records: recordsPath } },
      summary: `the next page is the \`Link\` header's rel="next"${size}; the read ends when there is none`,
    };
  }

  if (cursorParam) {
    const cursorName = bareName(cursorParam.name.replace(/^x-/i, ''));
    const to = cursorParam.in === 'header' ? { header: cursorParam.name } : { query: cursorParam.name };
    const candidates = fields.filter(
      (entry) => typeOf(entry.schema) === 'string' && NEXT_CURSOR_FIELDS.has(bareName(lastName(entry.path))),
    );
    // `next_page_token` for `page_token`; else a name that says next; else a cursor or `after` in a paging object.
    const from =
      candidates.find((entry) => bareName(lastName(entry.path)) === `next${cursorName}`) ??
      candidates.find((entry) => bareName(lastName(entry.path)).startsWith('next')) ??
      candidates.find((entry) => entry.path.includes('.'));
    const header = list.headers.find((name) => /^(x-)?next-?(cursor|page-?token|token)$/i.test(name));
    const read: ReadFrom | undefined = from ? from.path : header ? { header } : undefined;
    if (read !== undefined) {
      const stop = hasMore ? [{ hasMore: hasMore.path }] : undefined;
      return {
        ...base,
        ...sized(cursorParam.in === 'query' ? [cursorParam.name] : []),
        paginator: {
          kind: 'cursor',
          options: {
            records: recordsPath,
            cursor: { from: read, to },
            ...(stop ? { stop } : {}),
          },
        },
        summary: `the ${cursorParam.in} \`${cursorParam.name}\` sent back from ${typeof read === 'string' ? `\`${read}\`` : `the ${read.header} header`}${size}; the read ends when it is absent${hasMore ? ` or \`${hasMore.path}\` is not true` : ''}`,
      };
    }
    return {
      ...base,
      summary: `the document has a \`${cursorParam.name}\` parameter but the answer names no next cursor${hasMore ? ` (only \`${hasMore.path}\`): the cursor is likely the last record's id` : ''}; write a Paginator for it`,
    };
  }

  // An offset or a page number never runs out by itself: the read ends at an empty page, or at the total, or where the answer says no more.
  const stop: Stop[] | undefined = hasMore ? [{ hasMore: hasMore.path }] : total ? [{ total: total.path }] : undefined;
  const ends = hasMore
    ? `\`${hasMore.path}\` is not true`
    : total
      ? `the records read reach \`${total.path}\``
      : 'a page comes empty';
  const offsetParam = param(OFFSET_PARAMS, isNumber);
  if (offsetParam) {
    if (!sizeParam || sizeValue === undefined) {
      return {
        ...base,
        summary: `the document has an \`${offsetParam.name}\` parameter but no page size with a maximum or default; declare offsetPaginator with the page size the API takes`,
      };
    }
    return {
      ...base,
      driven: [offsetParam.name, sizeParam.name],
      paginator: {
        kind: 'offset',
        options: {
          records: recordsPath,
          offset: { param: offsetParam.name },
          pageSize: { param: sizeParam.name, value: sizeValue, ...(max === undefined ? {} : { max }) },
          ...(stop ? { stop } : {}),
        },
      },
      summary: `\`${offsetParam.name}\` moved on by the records read, ${sizeValue} a page (${sizeParam.name}); the read ends when ${ends}`,
    };
  }
  const pageParam = param(PAGE_PARAMS, isNumber);
  if (pageParam) {
    const initial = whole(pageParam.schema?.default) ?? whole(pageParam.schema?.minimum) ?? 1;
    return {
      ...base,
      ...sized([pageParam.name]),
      paginator: {
        kind: 'page-number',
        options: {
          records: recordsPath,
          page: { param: pageParam.name, ...(initial === 1 ? {} : { initial }) },
          ...(stop ? { stop } : {}),
        },
      },
      summary: `\`${pageParam.name}\` counted up from ${initial}${size}; the read ends when ${ends}`,
    };
  }
  return {
    ...base,
    summary:
      'the document shows no way to ask for a further page (no cursor, offset or page parameter, no next link or Link header)',
  };
}

/**
 * Incremental reading of a paged list: a date-time query parameter that asks for records newer
 * than an instant (`updated_after`, `modified_since`, `updated_at_min`, `since` ...) whose stem
 * names a date-time field of the record (`updated_at`). Updates are preferred to creations, as
 * they catch changed records too. Undefined without one, or without an id to tell records of
 * one instant apart.
 */
function incrementalOf(list: ListOperation, records: Records): DetectedIncremental | undefined {
  if (!records.many) return undefined;
  const { properties, required } = propertiesOf(records.item);
  const instants = Object.keys(properties).filter(
    (name) => typeOf(properties[name]) === 'string' && properties[name]!.format === 'date-time',
  );
  const stemOf = (words: string[]) => words.filter((word) => !TIME_WORDS.has(word)).join(' ');
  const candidates = list.parameters.flatMap((parameter) => {
    const unit = filterUnit(parameter);
    if (!unit) return [];
    const words = wordsOf(parameter.name).filter((word) => !UNIT_WORDS.has(word));
    const stem = stemOf(words.slice(0, -1));
    const field = stem
      ? instants.find((name) => stemOf(wordsOf(name)) === stem)
      : (instants.find((name) => /updat|modif|chang/.test(name)) ?? instants.find((name) => /creat/.test(name)));
    return field ? [{ query: parameter.name, field, format: unit }] : [];
  });
  const rank = (field: string) => (/updat|modif|chang/.test(field) ? 0 : /creat/.test(field) ? 2 : 1);
  const chosen = candidates.sort((left, right) => rank(left.field) - rank(right.field))[0];
  if (!chosen) return undefined;
  // The watermark tells records of one instant apart by an id: `id`, else `<resource>_id`, else `uuid` or `key`.
  const resource = wordsOf(
    list.path
      .split('/')
      .filter((segment) => segment && !segment.startsWith('{'))
      .at(-1) ?? '',
  ).join('_');
  const singular = resource.replace(/ies$/, 'y').replace(/s$/, '');
  const idField = ['id', `${singular}_id`, `${singular}Id`, 'uuid', 'key'].find(
    (name) => name in properties && ['string', 'integer'].includes(typeOf(properties[name]) ?? ''),
  );
  if (!idField || (!required.has(idField) && idField !== 'id')) return undefined;
  // Oldest first when the document lets the list be sorted on the field ascending: each page moves the checkpoint on.
  const ascending = sortedAscending(
    list.parameters,
    (value) => stemOf(wordsOf(value)) === stemOf(wordsOf(chosen.field)),
  );
  return {
    cursorField: chosen.field,
    ...(idField === 'id' ? {} : { tieBreaker: idField }),
    query: chosen.query,
    format: chosen.format,
    ...(ascending ? { sort: ascending, order: 'oldest-first' as const } : { order: 'newest-first' as const }),
  };
}

/** How a query parameter that asks for records newer than an instant writes it; undefined for any other parameter. */
function filterUnit(parameter: Parameter): DetectedIncremental['format'] | undefined {
  if (parameter.in !== 'query') return undefined;
  const all = wordsOf(parameter.name);
  const last = all.filter((word) => !UNIT_WORDS.has(word)).at(-1) ?? '';
  if (typeOf(parameter.schema) === 'string' && parameter.schema?.format === 'date-time')
    return NEWER_WORDS.has(last) ? 'iso' : undefined;
  if (!isNumber(parameter.schema) || !NEWER_NUMBER_WORDS.has(last)) return undefined;
  return all.some((word) => ['ms', 'millis', 'milliseconds'].includes(word)) ? 'unix-ms' : 'unix';
}

/**
 * The query values that sort a list ascending on a field: a sort parameter naming it (`updated_at`,
 * or `updated` as GitHub writes it) with a direction parameter taking `asc`, or a sort parameter
 * whose values are `field` and `-field` (JSON:API: the bare name is ascending).
 */
function sortedAscending(
  parameters: readonly Parameter[],
  names: (value: string) => boolean,
): Record<string, string> | undefined {
  const values = (parameter: Parameter) =>
    Array.isArray(parameter.schema?.enum) ? parameter.schema.enum.filter((value) => typeof value === 'string') : [];
  for (const parameter of parameters) {
    if (parameter.in !== 'query' || !SORT_PARAMS.has(bareName(parameter.name))) continue;
    const value = values(parameter).find((entry) => !entry.startsWith('-') && names(entry));
    if (value === undefined) continue;
    if (values(parameter).includes(`-${value}`)) return { [parameter.name]: value };
    const direction = parameters.find(
      (other) =>
        other !== parameter &&
        other.in === 'query' &&
        DIRECTION_PARAMS.has(bareName(other.name)) &&
        values(other).includes('asc'),
    );
    if (direction) return { [parameter.name]: value, [direction.name]: 'asc' };
  }
  return undefined;
}
