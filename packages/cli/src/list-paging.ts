import type { Method, Parameter, Schema } from './openapi-document.js';
import {
  bareName,
  CURSOR_NAMES,
  HAS_MORE_NAMES,
  NEXT_CURSOR_NAMES,
  NEXT_URL_NAMES,
  OFFSET_NAMES,
  PAGE_NAMES,
  PAGE_SIZE_NAMES,
  TOTAL_NAMES,
} from './paging-names.js';
import { type Records, recordsOf } from './list-records.js';
import { isNumber, nullable, propertiesOf, typeOf } from './schema-shape.js';

/**
 * How a list operation of an OpenAPI document pages, read from the document alone: where its
 * records are in the answer, how a request says which page it wants (a cursor, an offset, a
 * page number, the page size) and every way the answer says that another follows (a next
 * cursor in the body or a header, an RFC 8288 `Link` header, a next URL, `has_more`, a total).
 * One reading for both users: the scaffold declares a paginator from it (openapi-paging.ts)
 * and the stand-in serves pages as it says (mock/listing.ts), so a scaffolded connector reads
 * what the stand-in serves. Names are compared without case or separators (paging-names.ts).
 */

/** What the detection reads of one operation. */
export interface ListOperation {
  /** @default 'get' */
  method?: Method;
  path: string;
  /** The operation's parameters, its path item's included. */
  parameters: readonly Parameter[];
  /** The JSON schema of its success answer. */
  answer: Schema | undefined;
  /** The names of the headers its success answer declares, as written. */
  headers: readonly string[];
  /** The JSON schema of its request body: where a POST may carry its cursor. */
  body?: Schema | undefined;
}

/** What is written where a next cursor or URL is absent: nothing, `null`, or '' (a field that is required and not nullable). */
export type Absent = 'omit' | 'null' | 'empty';

/** A field of the answer: its dotted path, its schema, and how the answer leaves it out. */
export interface AnswerField {
  path: string;
  schema: Schema;
  absent: Absent;
}

/** The parameter carrying the cursor the answer before gave. A path cursor's `first` is the value that asks for the first page. */
export interface CursorParameter {
  in: 'query' | 'header' | 'path' | 'body';
  name: string;
  first?: string;
}

export interface ListPaging {
  records: Records;
  /** The query parameter saying how many records a page holds. */
  pageSize?: Parameter;
  offset?: Parameter;
  /** The page number parameter, and the first page's number. */
  page?: { parameter: Parameter; first: number };
  cursor?: CursorParameter;
  /** Where the answer gives the next page's cursor, when a cursor parameter takes it back. */
  nextCursor?: AnswerField;
  /** The header giving the next page's cursor, as the document writes its name. */
  cursorHeader?: string;
  nextUrl?: AnswerField;
  /** The `Link` header, as the document writes its name. */
  link?: string;
  hasMore?: AnswerField;
  total?: AnswerField;
  totalPages?: AnswerField;
}

/** How deep in the answer's envelope its paging fields are looked for (`_links.next.href` is 3). */
const FIELD_DEPTH = 3;
const TOTAL_PAGES_NAMES = ['totalpages', 'pagecount', 'pages'];
const URI_FORMAT = /^(uri|url|uri-reference|iri|iri-reference)$/;
const CURSOR_HEADER = /^(x-)?(next-?(page-?)?(cursor|token)|continuation(-token)?)$/i;

/** A parameter of the first of `names` (most likely first) that one of the parameters has and `accepts`. */
function named<P extends Parameter>(
  parameters: readonly P[],
  names: readonly string[],
  accepts: (schema?: Schema) => boolean,
): P | undefined {
  return names
    .map((name) => parameters.find((parameter) => bareName(parameter.name) === name && accepts(parameter.schema)))
    .find((parameter) => parameter !== undefined);
}

const instant = (schema: Schema | undefined) => schema?.format === 'date-time' || schema?.format === 'date';
/** Text a cursor can be: a string, not an instant (an instant is a filter). */
const cursorText = (schema: Schema | undefined) => [undefined, 'string'].includes(typeOf(schema)) && !instant(schema);
/** Text, or a combination with a text branch (Box's `next_stream_position` is a string or an integer). */
const textual = (schema: Schema) =>
  typeOf(schema) === 'string' ||
  [schema.anyOf, schema.oneOf].some(
    (parts) => Array.isArray(parts) && (parts as Schema[]).some((part) => typeOf(part) === 'string'),
  );
/** A field's own name, compared bare. */
const nameOf = (field: AnswerField) => bareName(field.path.split('.').at(-1)!);
/** The name of the answer's field that sends a cursor parameter back: `next_stream_position` for `stream_position`. */
const pairedName = (cursor: string) => `next${bareName(cursor.replace(/^x-/i, ''))}`;

/**
 * A cursor: text in the query, a header (`X-Cursor`), the path or a POST's JSON body, by a
 * cursor's name; else any text query parameter the answer sends back as `next_<its name>`.
 */
function cursorOf(list: ListOperation, fields: readonly AnswerField[]): CursorParameter | undefined {
  const unprefixed = list.parameters
    .filter((parameter) => parameter.in !== 'cookie')
    .map((parameter) => ({ ...parameter, name: parameter.name.replace(/^x-/i, ''), original: parameter }));
  const found = named(unprefixed, CURSOR_NAMES, cursorText);
  if (found) {
    const { original } = found;
    const first = original.schema?.default ?? original.schema?.example;
    return {
      in: original.in as CursorParameter['in'],
      name: original.name,
      ...(original.in === 'path' ? { first: typeof first === 'string' ? first : 'first' } : {}),
    };
  }
  const paired = list.parameters.find(
    (parameter) =>
      parameter.in === 'query' &&
      cursorText(parameter.schema) &&
      fields.some((field) => textual(field.schema) && nameOf(field) === pairedName(parameter.name)),
  );
  if (paired) return { in: 'query', name: paired.name };
  if (list.method !== 'post' || !list.body) return undefined;
  const property = Object.keys(propertiesOf(list.body).properties).find((name) =>
    CURSOR_NAMES.includes(bareName(name)),
  );
  return property === undefined ? undefined : { in: 'body', name: property };
}

/** Every field of the answer outside its records, with its dotted path, a few objects deep; names with a dot are left out. */
function fieldsOf(answer: Schema | undefined, records: string | undefined): AnswerField[] {
  const found: AnswerField[] = [];
  const walk = (at: Schema | undefined, prefix: string, depth: number) => {
    const { properties, required } = propertiesOf(at);
    for (const [name, property] of Object.entries(properties)) {
      const path = `${prefix}${name}`;
      if (name.includes('.') || path === records || !property || typeof property !== 'object') continue;
      const absent = nullable(property) ? 'null' : required.has(name) ? 'empty' : 'omit';
      found.push({ path, schema: property, absent });
      if (depth + 1 < FIELD_DEPTH && typeOf(property) === 'object') walk(property, `${path}.`, depth + 1);
    }
  };
  walk(answer, '', 0);
  return found;
}

/** The answer's fields saying where the next page is: a next URL, else a next cursor for the cursor parameter. */
function nextOf(fields: readonly AnswerField[], cursor: CursorParameter | undefined) {
  const text = (field: AnswerField) => typeOf(field.schema) === 'string';
  const nextUrl = fields.find((field) => {
    const name = nameOf(field);
    if (!text(field) || !NEXT_URL_NAMES.includes(name)) return false;
    // `href` counts inside a `next` link object (HAL); a bare `next` is a URL unless a cursor goes back.
    if (name === 'href') return bareName(field.path.split('.').at(-2) ?? '') === 'next';
    return URI_FORMAT.test(String(field.schema.format ?? '')) || name !== 'next' || !cursor;
  });
  if (!cursor) return { nextUrl };
  const paired = pairedName(cursor.name);
  const candidates = fields.filter(
    (field) =>
      textual(field.schema) &&
      (NEXT_CURSOR_NAMES.includes(nameOf(field)) || nameOf(field) === paired) &&
      field !== nextUrl,
  );
  // `next_page_token` for `page_token`; else a name that says next; else a cursor or `after` in a paging object.
  const nextCursor =
    candidates.find((field) => nameOf(field) === paired) ??
    candidates.find((field) => nameOf(field).startsWith('next')) ??
    candidates.find((field) => field.path.includes('.'));
  return { nextUrl, nextCursor };
}

/** Where a list operation's records are and how it pages, as far as its document says. */
export function listPagingOf(list: ListOperation): ListPaging {
  const records = recordsOf(list.answer, list.path);
  if (!records.many) return { records };
  const query = list.parameters.filter((parameter) => parameter.in === 'query');
  const pageSize = named(query, PAGE_SIZE_NAMES, isNumber);
  const offset = named(query, OFFSET_NAMES, isNumber);
  const page = named(query, PAGE_NAMES, isNumber);
  const fields = fieldsOf(list.answer, records.property);
  const field = (names: readonly string[], accepts: (schema: Schema) => boolean) =>
    fields.find((entry) => names.includes(nameOf(entry)) && accepts(entry.schema));
  const total = field(TOTAL_NAMES, isNumber);
  // An offset with a total reads the whole list by itself; a cursor beside it may need a switch
  // the document only describes in words (Box's `usemarker`), so the offset is what is read.
  const cursor = offset && total ? undefined : cursorOf(list, fields);
  const { nextUrl, nextCursor } = nextOf(fields, cursor);
  return {
    records,
    pageSize,
    offset,
    page: page ? { parameter: page, first: firstPage(page) } : undefined,
    cursor,
    nextCursor,
    cursorHeader: cursor ? list.headers.find((name) => CURSOR_HEADER.test(name)) : undefined,
    nextUrl,
    link: list.headers.find((name) => name.toLowerCase() === 'link'),
    hasMore: field(HAS_MORE_NAMES, (schema) => typeOf(schema) === 'boolean'),
    total,
    totalPages: field(TOTAL_PAGES_NAMES, isNumber),
  };
}

/** The first page's number: the parameter's default, else its minimum, else 1. */
function firstPage(page: Parameter): number {
  return [page.schema?.default, page.schema?.minimum].find((value): value is number => Number.isInteger(value)) ?? 1;
}
