import type { StopWhen } from './paged-options.js';
import { type PageAnswer, PageValueError, valueAt } from './paginator.js';

/** Statuses that refuse the caller (credentials, permission, rate): never the end of a list. */
const REFUSALS = new Set([401, 403, 407, 429]);

/** Whether a stop condition holds for a page: its records and how far into the list the read has come. */
export interface PageEnd {
  answer: PageAnswer;
  /** The records on the page, as the provider sent them. */
  records: number;
  /** How many records the read has reached with this page: counted, or an offset paginator's offset. */
  reached: number;
}

/**
 * True when a condition holds. A value one that cannot be read (a missing `has_more`, a `total`
 * that is not a number) is a changed answer, reported rather than taken as the end; it is
 * reported only when no other condition holds.
 */
export function stopHolds(stops: readonly StopWhen[], pageSize: number | undefined, page: PageEnd): boolean {
  let unreadable: PageValueError | undefined;
  for (const stop of stops) {
    if (stop === 'empty-page' && page.records === 0) return true;
    if (stop === 'short-page' && page.records < (pageSize ?? 0)) return true;
    if (typeof stop !== 'object' || 'status' in stop) continue;
    if ('hasMore' in stop) {
      const more = valueAt(page.answer.data, stop.hasMore);
      if (more === false) return true;
      if (more !== true) unreadable ??= unreadableStop(stop.hasMore, 'no true or false');
      continue;
    }
    const total = totalAt(page.answer, stop.total);
    if (total === undefined) unreadable ??= unreadableStop(stop.total, 'no number');
    else if (page.reached >= total) return true;
  }
  if (unreadable) throw unreadable;
  return false;
}

/** The number at a `total` path: a number, or the text of one; undefined for anything else. */
export function totalAt(answer: PageAnswer, path: string): number | undefined {
  const value = valueAt(answer.data, path);
  const total = typeof value === 'number' || (typeof value === 'string' && value !== '') ? Number(value) : NaN;
  return Number.isFinite(total) ? total : undefined;
}

/** The path of the first `{ total }` condition, if any. */
export function totalPath(stops: readonly StopWhen[]): string | undefined {
  for (const stop of stops) if (typeof stop === 'object' && 'total' in stop) return stop.total;
  return undefined;
}

const unreadableStop = (path: string, found: string) =>
  new PageValueError([{ path, found: `has ${found} here (the stop condition reads it)` }]);

/** The statuses the `{ status }` conditions name. */
export function stopStatuses(stops: readonly StopWhen[]): number[] {
  const statuses: number[] = [];
  for (const stop of stops)
    if (typeof stop === 'object' && 'status' in stop && Array.isArray(stop.status)) statuses.push(...stop.status);
  return statuses;
}

/** The paths the value conditions read from the answer's body, by their option's name. */
export function stopPaths(stops: readonly StopWhen[]): [string, string][] {
  const paths: [string, string][] = [];
  for (const stop of stops) {
    if (typeof stop !== 'object' || 'status' in stop) continue;
    paths.push('hasMore' in stop ? ['hasMore', stop.hasMore] : ['total', stop.total]);
  }
  return paths;
}

/** What is wrong with the conditions as declared. */
export function stopProblems(stops: readonly StopWhen[], hasPageSize: boolean): string[] {
  const problems: string[] = [];
  for (const stop of stops) {
    if (stop === 'short-page' && !hasPageSize) problems.push("stop 'short-page' needs a pageSize");
    if (typeof stop !== 'object' || stop === null) continue;
    if ('status' in stop) problems.push(...statusProblems(stop.status));
    else if (!Object.values(stop)[0]) problems.push(`stop ${JSON.stringify(stop)} needs a path`);
  }
  return problems;
}

function statusProblems(statuses: unknown): string[] {
  if (!Array.isArray(statuses) || statuses.length === 0) return ['stop { status } needs a list of 4xx statuses'];
  const problems: string[] = [];
  for (const status of statuses) {
    if (!(Number.isInteger(status) && status >= 400 && status <= 499))
      problems.push(
        `stop { status }: ${JSON.stringify(status)} is not a 4xx status (a page past the last one is a client error)`,
      );
    else if (REFUSALS.has(status))
      problems.push(`stop { status }: ${status} refuses the caller rather than ending the list; it cannot end a read`);
  }
  return problems;
}
