import { sampleOf } from '@plugboard/catalogue/sample';
import type { Schema } from '../openapi-document.js';
import type { Absent } from '../list-paging.js';
import type { Listing, Position } from './listing.js';
import { instantsOf, RecordMaker } from './records.js';
import { Refusal } from './refusal.js';

/**
 * The records of one list operation and its pages. Their instants are held oldest first and a
 * record is made when a page serves it. A filter on their instant and the sort direction make
 * a contiguous run of them (found by binary search), and a page is a slice of that run, so a
 * page costs its size whatever the number of records. A cursor names the record the next page
 * starts at, so it stays right when records are added between reads. With `grow`, every read
 * after the first (a read starts with a first-page request) finds `grow` newer records: the
 * next incremental run reads them.
 */

export interface RecordListOptions {
  seed: string;
  count: number;
  /** Records added before each read after the first. */
  grow: number;
  /** Where the first records end: the newest of them is at this instant (ms). */
  end: number;
  /** The most records held: growth stops there. */
  cap: number;
}

/** What a page request carries where a position can be. */
export interface PageAsk {
  query: URLSearchParams;
  header(name: string): string | undefined;
  path: Record<string, string>;
  body: unknown;
  /** The request's own URL on the stand-in, to build a next URL from. */
  url: URL;
}

export interface PageAnswer {
  body: unknown;
  headers: Record<string, string>;
}

const CURSOR = /^pos:(\d{1,9})$/;
const MAX_POSITION = Number.MAX_SAFE_INTEGER;

const encode = (index: number) => Buffer.from(`pos:${index}`).toString('base64url');

function setAt(value: unknown, path: string, set: unknown): unknown {
  if (path === '') return set;
  const steps = path.split('.');
  let at = value as Record<string, unknown>;
  for (const step of steps.slice(0, -1)) {
    if (at[step] === null || typeof at[step] !== 'object') at[step] = {};
    at = at[step] as Record<string, unknown>;
  }
  const last = steps.at(-1)!;
  if (set === undefined) delete at[last];
  else at[last] = set;
  return value;
}

/** The first index of `instants` (going up) more than `at` (or at least `at`, `inclusive`). */
function firstAfter(instants: readonly number[], at: number, inclusive: boolean): number {
  let low = 0;
  let high = instants.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const instant = instants[middle]!;
    if (instant > at || (inclusive && instant === at)) high = middle;
    else low = middle + 1;
  }
  return low;
}

function whole(text: string, field: string, min: number): number {
  if (!/^\d{1,16}$/.test(text) || Number(text) > MAX_POSITION || Number(text) < min)
    throw new Refusal(400, 'invalid_request', `${field} must be a whole number of at least ${min}`);
  return Number(text);
}

export class RecordList {
  /** The instant of each record, oldest first: milliseconds since the epoch, whole seconds. */
  readonly instants: number[];
  private readonly maker: RecordMaker;
  /** A first page was served: the next one starts a later read, which finds new records. */
  private read = false;

  constructor(
    readonly listing: Listing,
    private readonly options: RecordListOptions,
  ) {
    this.maker = new RecordMaker(listing.record, options.seed, listing.always);
    this.instants = instantsOf(options.seed, { count: Math.min(options.count, options.cap), end: options.end });
  }

  /** Adds `count` records newer than every one held (up to the cap). */
  grow(count: number): void {
    const room = Math.max(0, Math.min(count, this.options.cap - this.instants.length));
    if (room === 0) return;
    const newest = this.instants.at(-1);
    const place = newest === undefined ? { count: room, end: this.options.end } : { count: room, after: newest };
    for (const at of instantsOf(this.options.seed, place)) this.instants.push(at);
  }

  page(ask: PageAsk): PageAnswer {
    const { listing } = this;
    const size = this.size(ask.query);
    const newestFirst = this.newestFirst(ask.query);
    const position = this.position(ask);
    const bounds = this.bounds(ask.query);
    // Only a request it answers starts a read; not a read's end, as a reader that stops early (newest first) ends none.
    if (position.first && this.read) this.grow(this.options.grow);
    if (position.first) this.read = true;
    const [low, high] = this.range(bounds);
    const total = high - low;
    // `skip`: how many of the run come before the page, from its oldest end (or newest, newest first).
    let skip: number;
    if (position.cursor === undefined) skip = position.skip;
    else skip = Math.max(0, newestFirst ? high - 1 - position.cursor : position.cursor - low);
    const count = Math.max(0, Math.min(size, total - skip));
    const indexes = Array.from({ length: count }, (_, at) => (newestFirst ? high - 1 - skip - at : low + skip + at));
    const more = skip + count < total;
    const records = indexes.map((index) => this.maker.make(index, this.instants[index]!));
    const following = newestFirst ? high - 1 - skip - count : low + skip + count;

    const sample = structuredClone(sampleOf(listing.answer as Schema));
    const body = listing.records === '' ? records : sample !== null && typeof sample === 'object' ? sample : {};
    const headers: Record<string, string> = {};
    if (listing.records !== '') setAt(body, listing.records, records);
    const nextValue = (): string => {
      const { position: at } = listing;
      if (at.kind === 'cursor') return encode(following);
      return String(at.kind === 'offset' ? skip + count : Number(ask.query.get(at.name) ?? at.first) + 1);
    };
    const nextUrl = () => {
      const url = new URL(ask.url);
      url.searchParams.set(listing.position.name, nextValue());
      return url.toString();
    };
    const absent = (kind: Absent) => (kind === 'omit' ? undefined : kind === 'null' ? null : '');
    const { signals } = listing;
    if (signals.cursor) setAt(body, signals.cursor.path, more ? nextValue() : absent(signals.cursor.absent));
    if (signals.nextUrl) setAt(body, signals.nextUrl.path, more ? nextUrl() : absent(signals.nextUrl.absent));
    if (signals.cursorHeader && more) headers[signals.cursorHeader] = nextValue();
    if (signals.link && more) headers.link = `<${nextUrl()}>; rel="next"`;
    if (signals.hasMore) setAt(body, signals.hasMore, more);
    if (signals.total) setAt(body, signals.total, total);
    if (signals.totalPages) setAt(body, signals.totalPages, Math.ceil(total / size));
    return { body, headers };
  }

  private size(query: URLSearchParams): number {
    const { param, default: fallback, max } = this.listing.pageSize;
    const text = param === undefined ? undefined : query.get(param);
    if (text === undefined || text === null) return fallback;
    const size = whole(text, `query.${param}`, 1);
    if (size > max) throw new Refusal(400, 'invalid_request', `query.${param} must be at most ${max}`);
    return size;
  }

  private newestFirst(query: URLSearchParams): boolean {
    const { order } = this.listing;
    if (!order) return false;
    const asked = query.get(order.param);
    return asked === null ? order.default === 'desc' : order.newestFirst.includes(asked);
  }

  /** Where the page starts: a count of records to skip, or the record a cursor names; `first` for a first page. */
  private position(ask: PageAsk): { first: boolean; skip: number; cursor?: number } {
    const at: Position = this.listing.position;
    if (at.kind === 'cursor') {
      const field = `${at.in}.${at.name}`;
      const given =
        at.in === 'query'
          ? ask.query.get(at.name)
          : at.in === 'header'
            ? ask.header(at.name)
            : at.in === 'path'
              ? ask.path[at.name]
              : (ask.body as Record<string, unknown> | undefined)?.[at.name];
      if (given === undefined || given === null || given === '' || given === at.first) return { first: true, skip: 0 };
      const text = typeof given === 'string' ? Buffer.from(given, 'base64url').toString('latin1') : '';
      const index = CURSOR.exec(text)?.[1];
      if (
        typeof given !== 'string' ||
        index === undefined ||
        encode(Number(index)) !== given ||
        Number(index) > this.instants.length
      )
        throw new Refusal(400, 'invalid_request', `${field} is not a cursor this API gave`);
      return { first: false, skip: 0, cursor: Number(index) };
    }
    const text = ask.query.get(at.name);
    if (at.kind === 'offset') {
      const skip = text === null ? 0 : whole(text, `query.${at.name}`, 0);
      return { first: skip === 0, skip };
    }
    const page = text === null ? at.first : whole(text, `query.${at.name}`, at.first);
    // A page past every record is empty; its number is bounded so that the product stays exact.
    return { first: page === at.first, skip: Math.min((page - at.first) * this.size(ask.query), MAX_POSITION) };
  }

  /** The records the time filters keep: indexes `[low, high)` of the oldest-first list. */
  /** The instants the time filters asked for bound the records by, each checked. */
  private bounds(query: URLSearchParams): Array<{ bound: 'after' | 'before'; at: number }> {
    return this.listing.filters.flatMap((filter) => {
      const text = query.get(filter.param);
      if (text === null) return [];
      const field = `query.${filter.param}`;
      if (filter.unit === 'iso') {
        const at = Date.parse(text);
        if (!Number.isFinite(at)) throw new Refusal(400, 'invalid_request', `${field} must be a date-time`);
        return [{ bound: filter.bound, at }];
      }
      if (!/^-?\d{1,16}$/.test(text)) throw new Refusal(400, 'invalid_request', `${field} must be a unix time`);
      return [{ bound: filter.bound, at: Number(text) * (filter.unit === 's' ? 1000 : 1) }];
    });
  }

  /** The records within the bounds: indexes `[low, high)` of the oldest-first list. */
  private range(bounds: ReadonlyArray<{ bound: 'after' | 'before'; at: number }>): [number, number] {
    let low = 0;
    let high = this.instants.length;
    for (const { bound, at } of bounds) {
      if (bound === 'after') low = Math.max(low, firstAfter(this.instants, at, false));
      else high = Math.min(high, firstAfter(this.instants, at, true));
    }
    return [low, Math.max(low, high)];
  }
}
