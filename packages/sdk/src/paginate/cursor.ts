import { declared, read, withValue } from './declared.js';
import type { CursorOptions, NextUrlOptions, PagedOptions, ReadFrom } from './paged-options.js';
import { kindOf, type PageAnswer, type Paginator, PageValueError } from './paginator.js';

/**
 * The paginators that read the next page from the answer: a cursor sent back, a next URL, the
 * `Link` header. None coming (absent, null or empty) ends the read; a value of another type is
 * a PageValueError naming where it was read and what it was, never taken for the last page.
 */

/** The value at `from`, undefined when none comes. */
function present(answer: PageAnswer, from: ReadFrom): unknown {
  const value = read(answer, from);
  return value === undefined || value === null || value === '' ? undefined : value;
}

const where = (from: ReadFrom) => (typeof from === 'string' ? from : `(header ${from.header})`);

/** The cursor at `from`: text, or a whole number taken as its decimal text; undefined when none comes. */
function cursorAt(answer: PageAnswer, from: ReadFrom): string | undefined {
  const value = present(answer, from);
  if (value === undefined || typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  const seen =
    typeof value !== 'number'
      ? kindOf(value)
      : Number.isInteger(value)
        ? 'a number too large to send back exactly'
        : 'a number that is not a whole number';
  throw new PageValueError([{ path: where(from), found: `has ${seen} here, not a cursor (text or a whole number)` }]);
}

/** The next page's URL at `from`; undefined when none comes. */
function urlAt(answer: PageAnswer, from: ReadFrom): string | undefined {
  const value = present(answer, from);
  if (value === undefined || typeof value === 'string') return value;
  throw new PageValueError([{ path: where(from), found: `has ${kindOf(value)} here, not a URL` }]);
}

/** A cursor read from the answer (or a header) and sent back; the read ends when none comes. */
export function cursorPaginator(options: CursorOptions): Paginator {
  const { from, to, initial } = options.cursor ?? ({} as Partial<CursorOptions['cursor']>);
  const problems: string[] = [];
  if (!from || (typeof from === 'object' && !from.header)) problems.push('cursor.from needs a path or a header');
  if (!to || !Object.values(to)[0]) problems.push('cursor.to needs where the cursor goes: query, header, body or path');
  else if ('path' in to && initial === undefined) problems.push('a cursor sent in the path needs an initial value');
  return declared(options, {
    name: 'cursor',
    stops: [],
    endsByItself: true,
    problems,
    reads: { 'cursor.from': { from, as: 'cursor' } },
    first: (request) => (initial === undefined ? request : withValue(request, to!, initial)),
    next: ({ answer, request, read, stopped }) => {
      if (stopped(read)) return undefined;
      const cursor = cursorAt(answer, from!);
      return cursor === undefined ? undefined : withValue(request, to!, cursor);
    },
  });
}

/** The next page's URL read from the answer (or a header); the read ends when none comes. */
export function nextUrlPaginator(options: NextUrlOptions): Paginator {
  const from = options.next;
  const problems = !from || (typeof from === 'object' && !from.header) ? ['next needs a path or a header'] : [];
  return declared(options, {
    name: 'next-url',
    stops: [],
    endsByItself: true,
    problems,
    reads: { next: { from, as: 'value' } },
    first: (request) => request,
    next: ({ answer, request, read, stopped }) => {
      if (stopped(read)) return undefined;
      const url = urlAt(answer, from);
      return url === undefined ? undefined : { method: request.method, path: request.path, url };
    },
  });
}

/** The RFC 8288 `Link` header's `rel="next"` target; the read ends when none comes. */
export function linkHeaderPaginator(options: PagedOptions): Paginator {
  return declared(options, {
    name: 'link-header',
    stops: [],
    endsByItself: true,
    problems: [],
    first: (request) => request,
    next: ({ answer, request, read, stopped }) => {
      if (stopped(read)) return undefined;
      const url = nextLink(answer.header('link'));
      return url === undefined ? undefined : { method: request.method, path: request.path, url };
    },
  });
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
