/**
 * The names by which an OpenAPI document marks how a list pages, compared without case or
 * separators (`next_cursor`, `nextCursor` and `next-cursor` are one), most likely first. The
 * scaffold declares a paginator by them (openapi-paging.ts) and the stand-in serves pages by
 * them (mock/listing.ts), so that a scaffolded connector reads what the stand-in serves.
 */

/** A name compared without case or separators: `page_token`, `pageToken` and `page[token]` are alike. */
export const bareName = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** The property of an answer's envelope holding its records. */
export const RECORD_NAMES: readonly string[] = [
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
/** A query parameter saying how many records a page holds. */
export const PAGE_SIZE_NAMES: readonly string[] = [
  'limit',
  'pagesize',
  'perpage',
  'size',
  'count',
  'maxresults',
  'top',
  'take',
  'pagelimit',
  'maxitems',
  'maxpagesize',
];
/** A query parameter counting the records to skip. */
export const OFFSET_NAMES: readonly string[] = ['offset', 'skip', 'start', 'startindex', 'pageoffset'];
/** A query parameter numbering the page. */
export const PAGE_NAMES: readonly string[] = ['page', 'pagenumber', 'pagenum', 'pageindex', 'pageno'];
/** A parameter carrying the cursor the answer before gave. */
export const CURSOR_NAMES: readonly string[] = [
  'cursor',
  'pagetoken',
  'nexttoken',
  'continuationtoken',
  'continuation',
  'pagecursor',
  'pageafter',
  'startingafter',
  'after',
  'marker',
];
/** A field of the answer holding the cursor of the next page. */
export const NEXT_CURSOR_NAMES: readonly string[] = [
  'nextcursor',
  'nextpagetoken',
  'nexttoken',
  'nextpagecursor',
  'endcursor',
  'continuationtoken',
  'nextmarker',
  'cursor',
  'after',
  'next',
];
/** A field of the answer holding the next page's URL (`href` only inside a `next` link object, as HAL writes it). */
export const NEXT_URL_NAMES: readonly string[] = [
  'next',
  'nexturl',
  'nextlink',
  'odatanextlink',
  'nexthref',
  'nextpage',
  'nextpageurl',
  'href',
];
/** A boolean field of the answer saying another page follows. */
export const HAS_MORE_NAMES: readonly string[] = ['hasmore', 'more', 'hasnext', 'hasnextpage', 'moreresults'];
/** A number field of the answer counting every record of the list. */
export const TOTAL_NAMES: readonly string[] = [
  'total',
  'totalcount',
  'totalresults',
  'totalitems',
  'totalrecords',
  'totalentries',
  'totalsize',
];
