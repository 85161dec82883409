import type { DeclaredPaging, DetectedIncremental, DetectedPaginator } from './openapi-paging.js';
import { propertyKey } from './zod-source.js';

/**
 * The source text of the paging a scaffold declares: each detected paginator as the SDK call
 * that declares it, written once in `src/listing.ts` when several sources page alike (as a
 * hand-written connector shares one), else in the action's own file; and the lines of a source
 * action that declare it (with `incremental` where the list can be read from a checkpoint on)
 * and read every page with `ctx.pages`.
 */

const FACTORIES: Record<DetectedPaginator['kind'], string> = {
  cursor: 'cursorPaginator',
  offset: 'offsetPaginator',
  'page-number': 'pageNumberPaginator',
  'next-url': 'nextUrlPaginator',
  'link-header': 'linkHeaderPaginator',
};
const NAMES: Record<DetectedPaginator['kind'], string> = {
  cursor: 'byCursor',
  offset: 'byOffset',
  'page-number': 'byPageNumber',
  'next-url': 'byNextUrl',
  'link-header': 'byLinkHeader',
};

/** Comment lines of at most about 110 columns, each starting with `lead` (`  // `, ` * `). */
export function commentLines(text: string, lead: string): string[] {
  const lines: string[] = [];
  let line = '';
  // Text from the document never ends the comment it is in.
  for (const word of text.replace(/\*\//g, '* /').split(/\s+/).filter(Boolean)) {
    if (line && lead.length + line.length + word.length > 110) {
      lines.push(`${lead}${line}`);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, `${lead}${line}`] : lines;
}

/** What a list whose paging was not found says in its `read`, for the author to finish. */
export function unpagedNote(summary: string): string[] {
  return commentLines(
    `TODO paging: ${summary}. If the API pages, declare a paginator (cursorPaginator, offsetPaginator, pageNumberPaginator, nextUrlPaginator or linkHeaderPaginator of @plugboard/sdk) and read with ctx.pages.`,
    '    // ',
  );
}

/** A JSON value as a TypeScript literal: bare keys where they may be, strings quoted as JSON. */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (value !== null && typeof value === 'object')
    return `{ ${Object.entries(value)
      .map(([key, entry]) => `${propertyKey(key)}: ${literal(entry)}`)
      .join(', ')} }`;
  return JSON.stringify(value);
}

/** The SDK call declaring a detected paginator, e.g. `cursorPaginator({ records: 'data', ... })`. */
export function paginatorSource(paginator: DetectedPaginator): string {
  return `${FACTORIES[paginator.kind]}(${literal(paginator.options)})`;
}

export interface Listing {
  /** The export name in `src/listing.ts` of each paginator several sources share, by its source text. */
  shared: Map<string, string>;
  /** `src/listing.ts`, when any paginator is shared. */
  source: string | undefined;
}

/** The paginators several of these sources declare alike, named and written once. */
export function sharedListing(sources: ReadonlyArray<{ key: string; paging: DeclaredPaging }>): Listing {
  const users = new Map<string, { paginator: DetectedPaginator; keys: string[]; summary: string }>();
  for (const { key, paging } of sources) {
    if (!paging.paginator) continue;
    const text = paginatorSource(paging.paginator);
    const entry = users.get(text) ?? { paginator: paging.paginator, keys: [], summary: paging.summary };
    entry.keys.push(key);
    users.set(text, entry);
  }
  const shared = new Map<string, string>();
  const blocks: string[] = [];
  const factories = new Set<string>();
  for (const [text, { paginator, keys, summary }] of users) {
    if (keys.length < 2) continue;
    const base = NAMES[paginator.kind];
    const taken = [...shared.values()].filter((name) => name.startsWith(base)).length;
    const name = taken === 0 ? base : `${base}${taken + 1}`;
    shared.set(text, name);
    factories.add(FACTORIES[paginator.kind]);
    blocks.push(
      '/**',
      ...commentLines(`${keys.join(', ')} page alike: ${summary}.`, ' * '),
      ' */',
      `export const ${name} = ${text};`,
      '',
    );
  }
  if (shared.size === 0) return { shared, source: undefined };
  return {
    shared,
    source: [
      `import { ${[...factories].sort().join(', ')} } from '@plugboard/sdk';`,
      '',
      '/** How the lists of the API page, as the OpenAPI document describes them. */',
      '',
      ...blocks,
    ].join('\n'),
  };
}

export interface PagedRead {
  paging: DeclaredPaging & { paginator: DetectedPaginator };
  listing: Listing;
  /** The entity's export name: what the pages hold. */
  entity: string;
  /** The request's properties other than its query: `method: 'GET', path: '/projects'`. */
  request: string;
  /** The query's entries from the input, the paginator's and the newer-than parameter's left out. */
  query: string[];
}

/** Where a first run starts: the newer-than input, as the ISO 8601 instant the watermark ranks records' instants with. */
function startOf({ query, format }: DetectedIncremental): string {
  const given = `input[${JSON.stringify(query)}]`;
  if (format === 'iso') return given;
  return `${given} === undefined ? undefined : new Date(${given}${format === 'unix' ? ' * 1000' : ''}).toISOString()`;
}

/** What a paged source imports, and its declaration lines from `paginator` to the end of `read`. */
export function pagedReadSource({ paging, listing, entity, request, query }: PagedRead): {
  imports: string[];
  sdk: string[];
  lines: string[];
} {
  const text = paginatorSource(paging.paginator);
  const shared = listing.shared.get(text);
  const { incremental, pageSize } = paging;
  const entries = [...query];
  if (pageSize) {
    const sent = `input[${JSON.stringify(pageSize.param)}]`;
    entries.push(
      `${propertyKey(pageSize.param)}: ${pageSize.value === undefined ? sent : `${sent} ?? ${pageSize.value}`}`,
    );
  }
  for (const [param, value] of Object.entries(incremental?.sort ?? {}))
    entries.push(`${propertyKey(param)}: ${JSON.stringify(value)}`);
  const call = `ctx.pages<z.input<typeof ${entity}>>({ ${request}${entries.length ? `, query: { ${entries.join(', ')} }` : ''} }${incremental ? `, { from: ${startOf(incremental)} }` : ''})`;
  return {
    imports: shared ? [`import { ${shared} } from '../listing.js';`] : [],
    sdk: shared ? [] : [FACTORIES[paging.paginator.kind]],
    lines: [
      // A shared paginator says how it pages in src/listing.ts.
      ...(shared ? [] : commentLines(`Pages as the document describes: ${paging.summary}.`, '  // ')),
      `  paginator: ${shared ?? text},`,
      ...(incremental
        ? [
            ...commentLines(
              `Incremental on ${incremental.cursorField}: the next run asks for records with ${incremental.query} from its checkpoint on.`,
              '  // ',
            ),
            '  incremental: {',
            `    cursorField: ${JSON.stringify(incremental.cursorField)},`,
            ...(incremental.tieBreaker ? [`    tieBreaker: ${JSON.stringify(incremental.tieBreaker)},`] : []),
            `    checkpoint: z.object({ ${propertyKey(incremental.query)}: z.string(), seen_ids: z.array(z.string()) }),`,
            // 1 ms earlier returns the records at the instant whether the filter includes its bound or not; those read are dropped.
            `    newerThan: { query: ${JSON.stringify(incremental.query)}, format: '${incremental.format}', earlierMs: 1 },`,
            ...(incremental.order === 'oldest-first'
              ? ["    order: 'oldest-first',"]
              : [
                  "    // The document does not say which comes first: 'newest-first' loses no record either way; if the API lists",
                  "    // oldest first, say 'oldest-first' and each page moves the checkpoint on.",
                  "    order: 'newest-first',",
                ]),
            '  },',
          ]
        : []),
      '  read(ctx, input) {',
      `    return ${call};`,
      '  },',
    ],
  };
}
