import { type AnswerField, type ListOperation, type ListPaging, listPagingOf } from './list-paging.js';
import type { Records } from './list-records.js';
import { type DetectedIncremental, incrementalOf } from './openapi-incremental.js';

/**
 * The paginator a scaffold declares for a list operation of an OpenAPI document, from how the
 * document says it pages (list-paging.ts): which declared paginator of the SDK fits (a next URL
 * in the body or a `Link` header, a cursor sent back, an offset, a page number), its page size
 * and when it stops, and whether the list can be read incrementally (openapi-incremental.ts).
 * A connector declares what was found and never guesses at run time.
 */

export type { ListOperation } from './list-paging.js';
export type { DetectedIncremental } from './openapi-incremental.js';

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
type Stop = { hasMore: string } | { total: string } | 'empty-page';
interface PageSize {
  param: string;
  value: number;
  max?: number;
}

/** What a scaffolded source declares of a list's paging. */
export interface DeclaredPaging {
  records: Records;
  /** The paginator found; undefined when the document shows none (`summary` says what was looked for). */
  paginator?: DetectedPaginator;
  /** The query parameters the paginator sends: the read leaves them to it. */
  driven: string[];
  /** The page-size parameter the read sends, with the most it may be, when the paginator does not send it. */
  pageSize?: { param: string; value: number | undefined };
  /** One line saying how the list pages, or why no paginator was written. */
  summary: string;
  incremental?: DetectedIncremental;
}

const whole = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isInteger(value) ? value : undefined;

/** How a list operation pages, and whether it can be read incrementally (only when it pages: `ctx.pages` needs a paginator). */
export function detectPaging(list: ListOperation): DeclaredPaging {
  const found = listPagingOf(list);
  const paging = found.records.many
    ? declaredPaging(found)
    : { records: found.records, driven: [], summary: 'one record: nothing to page' };
  const incremental = paging.paginator ? incrementalOf(list, paging.records) : undefined;
  return incremental ? { ...paging, incremental } : paging;
}

/** The page size a read sends, at the most the document allows (else its default), and how a summary says it. */
function sizing(found: ListPaging) {
  const param = found.pageSize;
  const max = whole(param?.schema?.maximum);
  const value = max ?? whole(param?.schema?.default);
  return {
    max,
    value,
    /** The paging fields of a paginator that leaves the page size to the read. */
    sent: (driven: string[]) => ({ driven, ...(param ? { pageSize: { param: param.name, value } } : {}) }),
    said: param ? `, ${value ?? 'the default'} a page (${param.name})` : '',
  };
}

function declaredPaging(found: ListPaging): DeclaredPaging {
  const records = found.records;
  const size = sizing(found);
  const base = { records, driven: [] as string[] };
  const recordsPath = records.property ?? '';
  // A next URL in the body or a `Link` header: the provider says exactly where the next page is.
  if (found.nextUrl)
    return {
      ...base,
      ...size.sent([]),
      paginator: { kind: 'next-url', options: { records: recordsPath, next: found.nextUrl.path } },
      summary: `the next page's URL is at \`${found.nextUrl.path}\`${size.said}; the read ends when it is absent`,
    };
  if (found.link)
    return {
      ...base,
      ...size.sent([]),
      paginator: { kind: 'link-header', options: { records: recordsPath } },
      summary: `the next page is the \`Link\` header's rel="next"${size.said}; the read ends when there is none`,
    };
  const { cursor } = found;
  // The SDK's cursor paginators of a scaffold send it back in the query or a header.
  if (cursor && (cursor.in === 'query' || cursor.in === 'header')) return { ...base, ...byCursor(found, size) };
  return { ...base, ...byCount(found, size) };
}

/** A cursor sent back from the answer's body or a header, until it is absent, has_more is not true or a page is empty. */
function byCursor(found: ListPaging, size: ReturnType<typeof sizing>): Omit<DeclaredPaging, 'records'> {
  const cursor = found.cursor!;
  const { hasMore } = found;
  const read: ReadFrom | undefined = found.nextCursor
    ? found.nextCursor.path
    : found.cursorHeader
      ? { header: found.cursorHeader }
      : undefined;
  if (read === undefined)
    return {
      driven: [],
      summary: `the document has a \`${cursor.name}\` parameter but the answer names no next cursor${hasMore ? ` (only \`${hasMore.path}\`): the cursor is likely the last record's id` : ''}; write a Paginator for it`,
    };
  const to = cursor.in === 'header' ? { header: cursor.name } : { query: cursor.name };
  // An API may give a next cursor after its last record (Box's events do): an empty page ends the read too.
  const stop: Stop[] = [...(hasMore ? [{ hasMore: hasMore.path }] : []), 'empty-page'];
  return {
    ...size.sent(cursor.in === 'query' ? [cursor.name] : []),
    paginator: {
      kind: 'cursor',
      options: { records: found.records.property ?? '', cursor: { from: read, to }, stop },
    },
    summary: `the ${cursor.in} \`${cursor.name}\` sent back from ${typeof read === 'string' ? `\`${read}\`` : `the ${read.header} header`}${size.said}; the read ends when it is absent${hasMore ? `, \`${hasMore.path}\` is not true` : ''} or a page comes empty (an API may give a next cursor after its last record)`,
  };
}

/** An offset or a page number never runs out by itself: the read ends at an empty page, or at the total, or where the answer says no more. */
function byCount(found: ListPaging, size: ReturnType<typeof sizing>): Omit<DeclaredPaging, 'records'> {
  const recordsPath = found.records.property ?? '';
  const { hasMore, total, offset, page } = found;
  const stop: Stop[] | undefined = hasMore ? [{ hasMore: hasMore.path }] : total ? [{ total: total.path }] : undefined;
  const ends = endOf(hasMore, total);
  const stops = stop ? { stop } : {};
  if (offset) {
    const sizeParam = found.pageSize;
    if (!sizeParam || size.value === undefined)
      return {
        driven: [],
        summary: `the document has an \`${offset.name}\` parameter but no page size with a maximum or default; declare offsetPaginator with the page size the API takes`,
      };
    const pageSize = { param: sizeParam.name, value: size.value, ...(size.max === undefined ? {} : { max: size.max }) };
    return {
      driven: [offset.name, sizeParam.name],
      paginator: {
        kind: 'offset',
        options: { records: recordsPath, offset: { param: offset.name }, pageSize, ...stops },
      },
      summary: `\`${offset.name}\` moved on by the records read, ${size.value} a page (${sizeParam.name}); the read ends when ${ends}`,
    };
  }
  if (page) {
    const { first: initial } = page;
    const param = page.parameter.name;
    return {
      ...size.sent([param]),
      paginator: {
        kind: 'page-number',
        options: { records: recordsPath, page: { param, ...(initial === 1 ? {} : { initial }) }, ...stops },
      },
      summary: `\`${param}\` counted up from ${initial}${size.said}; the read ends when ${ends}`,
    };
  }
  return {
    driven: [],
    summary:
      'the document shows no way to ask for a further page (no cursor, offset or page parameter, no next link or Link header)',
  };
}

function endOf(hasMore: AnswerField | undefined, total: AnswerField | undefined): string {
  if (hasMore) return `\`${hasMore.path}\` is not true`;
  return total ? `the records read reach \`${total.path}\`` : 'a page comes empty';
}
