import { type AnswerPath, answerProblems, pageCheck, type ReadAs } from './answer.js';
import { type PageAnswer, type PageRequest, type Paginator, type PaginatorKind, valueAt } from './paginator.js';
import { stopHolds, stopPaths, stopProblems, stopStatuses } from './stops.js';
import type { PagedOptions, PageSize, ReadFrom, SendAs, StopWhen } from './paged-options.js';

/**
 * Paginators as data: each declared by where the records are, how the next page is asked for,
 * its page size and when to stop. This is the part they share; each kind is in a module of its
 * own (cursor.ts, offset.ts, page-number.ts). A declaration that cannot work (no stop condition
 * that can fire, a page size over its cap) is reported by `defineConnector` for the action that
 * declares it; `problems()` lists what is wrong.
 */

export const read = (answer: PageAnswer, from: ReadFrom): unknown =>
  typeof from === 'string' ? valueAt(answer.data, from) : (answer.header(from.header) ?? undefined);

export const withValue = (request: PageRequest, to: SendAs, value: string | number): PageRequest => {
  if ('query' in to) return { ...request, query: { ...request.query, [to.query]: value } };
  if ('header' in to) return { ...request, headers: { ...request.headers, [to.header]: String(value) } };
  if ('path' in to) return { ...request, params: { ...request.params, [to.path]: value } };
  const body = request.json !== null && typeof request.json === 'object' ? request.json : {};
  return { ...request, json: { ...body, [to.body]: value } };
};

const sized = (request: PageRequest, size: PageSize | undefined): PageRequest =>
  size ? { ...request, query: { ...request.query, [size.param]: size.value } } : request;

/** One page as a kind's `next` sees it. */
export interface PageRead {
  answer: PageAnswer;
  request: PageRequest;
  /** The page's records, as the provider sent them. */
  records: readonly unknown[];
  /** The run's records so far, this page's included. */
  read: number;
  /** True when a stop condition holds once the read has reached `reached` records. */
  stopped(reached: number): boolean;
}

/** What makes a kind of paginator. */
export interface Kind {
  name: PaginatorKind;
  /** The stop conditions when `stop` is not given. */
  stops: readonly StopWhen[];
  /** Whether the kind ends a read by itself (a cursor or link that does not come, an offset's empty page). */
  endsByItself: boolean;
  problems: string[];
  /** What it reads from the answer's body besides records and stop values, by the option's name, and as what. */
  reads?: Record<string, { from: ReadFrom | undefined; as: ReadAs }>;
  first(request: PageRequest): PageRequest;
  next(page: PageRead): PageRequest | undefined;
}

/** A declared paginator of a kind: records, stop conditions, the answer's check, limits and their problems. */
export function declared(options: PagedOptions, kind: Kind): Paginator {
  const stops = options.stop ?? kind.stops;
  const pageSize = options.pageSize?.value;
  const bodyReads: { name: string; path: string; as: ReadAs }[] = [
    { name: 'records', path: options.records, as: 'records' },
  ];
  for (const [name, { from, as }] of Object.entries(kind.reads ?? {}))
    if (typeof from === 'string') bodyReads.push({ name, path: from, as });
  for (const [name, path] of stopPaths(stops)) bodyReads.push({ name, path, as: 'value' });
  const check = pageCheck(options.answer, bodyReads);
  const statuses = stopStatuses(stops);
  return {
    kind: kind.name,
    recordsPath: options.records,
    recordKey: options.recordKey,
    maxPages: options.maxPages,
    maxRecords: options.maxRecords,
    maxMs: options.maxMs,
    ...(statuses.length > 0 ? { stopStatus: statuses } : {}),
    first: (request) => kind.first(sized(request, options.pageSize)),
    records: (answer) => {
      check?.(answer.data);
      const records = valueAt(answer.data, options.records);
      return Array.isArray(records) ? records : undefined;
    },
    next: (answer, request, records, read) =>
      kind.next({
        answer,
        request,
        records,
        read,
        stopped: (reached) => stopHolds(stops, pageSize, { answer, records: records.length, reached }),
      }),
    problems: () => [
      ...kind.problems,
      ...shapeProblems(options),
      ...stopProblems(stops, options.pageSize !== undefined),
      // A cursor, Link or next URL ends the read when it is absent, an offset at an empty page; a page number never runs out.
      ...(kind.endsByItself || stops.length > 0
        ? []
        : [
            "no stop condition can fire: give stop one of 'empty-page', 'short-page', { hasMore }, { total }, { status }",
          ]),
      ...limitProblems(options),
      ...(options.answer === undefined
        ? []
        : answerProblems(
            options.answer,
            bodyReads.map(({ name, path }): AnswerPath => [name, path]),
          )),
    ],
  };
}

/** The problems of where the records are and of the page size. */
function shapeProblems(options: PagedOptions): string[] {
  const problems: string[] = [];
  if (typeof options.records !== 'string') problems.push("records must be a dotted path ('' for the whole answer)");
  else if (options.records.split('.').some((part, _index, parts) => part === '' && parts.length > 1))
    problems.push(`records: '${options.records}' has an empty step`);
  const size = options.pageSize;
  if (size) {
    if (!size.param) problems.push('pageSize needs the parameter it is sent as');
    if (!(Number.isInteger(size.value) && size.value >= 1))
      problems.push('pageSize.value must be a whole number of at least 1');
    if (size.max !== undefined && size.value > size.max)
      problems.push(`pageSize.value ${size.value} is over its cap of ${size.max}`);
  }
  return problems;
}

/** The problems of `maxPages`, `maxRecords` and `maxMs`. */
function limitProblems(options: PagedOptions): string[] {
  const problems: string[] = [];
  for (const limit of ['maxPages', 'maxRecords', 'maxMs'] as const) {
    const value = options[limit];
    if (value !== undefined && !(value > 0)) problems.push(`${limit} must be more than zero`);
  }
  return problems;
}
