import type { Clock } from '../clock.js';
import { CancelledError, ConnectorError, PagingLoopError, SchemaMismatchError } from '../errors.js';
import type { Logger } from '../log.js';
import { LoopGuard } from './guard.js';
import {
  type PageAnswer,
  PageLoop,
  type PageRequest,
  PageValueError,
  type Paginator,
  type PagingEnd,
  type RecordPage,
  stepBackOf,
} from './paginator.js';
import { RECENT_KEYS, RecentKeys } from './recent-keys.js';

/** What the paging loop needs of the run's `ctx.http`. */
export interface PageFetch {
  /** `connector action`, for errors and the log. */
  subject: string;
  clock: Clock;
  signal: AbortSignal;
  log: Logger;
  /** The URL a page's request goes to: built from the base URL, or the provider's next URL resolved against the page before. */
  url(request: PageRequest, previous: URL | undefined): URL;
  /** Sends one page's request down the run's pipeline. */
  send(request: PageRequest, url: URL): Promise<PageAnswer>;
}

/**
 * Every page of a paged read, in order, until the paginator says the last has come: each
 * request through the run's pipeline, under the loop guard (guard.ts), within the
 * paginator's limits and the run's signal.
 */
export async function* paginate(
  fetch: PageFetch,
  request: PageRequest,
  paginator: Paginator,
): AsyncGenerator<RecordPage> {
  const { subject, clock, signal, log } = fetch;
  const { maxRecords, recordKey = 'id', recordsPath = '(records)' } = paginator;
  const guard = new LoopGuard();
  // Only an offset steps back (offset.ts): its reads keep the latest keys, to drop records read again.
  const recent = paginator.kind === 'offset' ? new RecentKeys() : undefined;
  const started = clock.now();
  let next: PageRequest | undefined = paginator.first(request);
  let previous: URL | undefined;
  let read = 0;
  for (let number = 1; next; number += 1) {
    if (signal.aborted) throw new CancelledError(`${subject}: the run was cancelled before page ${number}`);
    if (stoppedAtLimit(fetch, paginator, number, clock.now() - started)) return;
    const current: PageRequest = next;
    const url = fetch.url(current, previous);
    const requestKey = `${current.method ?? 'GET'} ${url.href}\n${JSON.stringify(current.headers ?? {})}\n${JSON.stringify(current.json ?? null)}`;
    if (guard.asksAgain(requestKey)) {
      throw new PagingLoopError(
        subject,
        number,
        'asks for a page already read in this run (a cursor, offset or URL seen before)',
      );
    }
    const answer = await pageAnswer(fetch, paginator, current, url, number);
    if (answer instanceof ConnectorError) {
      ended(log, subject, number, answer.status);
      yield { records: [], number, requestId: answer.requestId, last: true };
      return;
    }
    const records = reading(subject, answer, number, () => paginator.records(answer));
    if (!records) {
      throw new SchemaMismatchError(
        subject,
        [{ path: recordsPath, message: `page ${number} has no list of records here` }],
        { status: answer.status, requestId: answer.requestId },
      );
    }
    if (guard.sameAsLast(records, recordKey)) {
      throw new PagingLoopError(subject, number, 'holds the same records as the page before it', {
        requestId: answer.requestId,
      });
    }
    const { fresh, keys } = recent ? recent.unseen(records, recordKey) : { fresh: records as unknown[], keys: [] };
    next = reading(subject, answer, number, () => paginator.next(answer, current, records, read + fresh.length));
    let kept: unknown[] = [];
    const back = next && stepBackOf(next);
    if (back !== undefined) {
      // This page is set aside: the pages from the step back on hold its records again.
      if (!recent?.covers(back))
        throw new PagingLoopError(
          subject,
          number,
          `steps back over ${back} records, more than the ${RECENT_KEYS} whose keys the read keeps, so some could be delivered twice`,
          { requestId: answer.requestId },
        );
      guard.steppedBack();
    } else {
      recent?.add(keys);
      read += fresh.length;
      kept = fresh;
      if (maxRecords !== undefined && read >= maxRecords) {
        if (read > maxRecords) kept = kept.slice(0, kept.length - (read - maxRecords));
        if (next || read > maxRecords)
          log.warn(`${subject}: stopped paging at maxRecords (${maxRecords}) on page ${number}`, {
            pagingEnded: 'maxRecords',
            page: number,
          });
        else ended(log, subject, number);
        next = undefined;
      } else if (!next) ended(log, subject, number);
    }
    previous = url;
    yield { records: kept, number, requestId: answer.requestId, last: next === undefined };
  }
}

/** True, with a warning in the log, when `maxPages` or `maxMs` stops the read before this page. */
function stoppedAtLimit(fetch: PageFetch, paginator: Paginator, number: number, elapsedMs: number): boolean {
  const { maxPages, maxMs } = paginator;
  const limit: { name: PagingEnd; value: number } | undefined =
    maxPages !== undefined && number > maxPages
      ? { name: 'maxPages', value: maxPages }
      : maxMs !== undefined && elapsedMs >= maxMs
        ? { name: 'maxMs', value: maxMs }
        : undefined;
  if (!limit) return false;
  fetch.log.warn(
    `${fetch.subject}: stopped paging at ${limit.name} (${limit.value}) before page ${number}; more pages may follow`,
    { pagingEnded: limit.name, page: number },
  );
  return true;
}

/**
 * The page's answer; or, after the first page, the error of a status the paginator stops at (a
 * 404 past the last page): there is no page there, and the one before was the last.
 */
async function pageAnswer(
  fetch: PageFetch,
  paginator: Paginator,
  request: PageRequest,
  url: URL,
  number: number,
): Promise<PageAnswer | ConnectorError> {
  try {
    return await fetch.send(request, url);
  } catch (error) {
    const stops = paginator.stopStatus;
    if (number > 1 && error instanceof ConnectorError && error.status !== undefined && stops?.includes(error.status))
      return error;
    throw error;
  }
}

/** What `read` returns, a value it could not read reported as a SchemaMismatchError, a loop as a PagingLoopError. */
function reading<T>(subject: string, answer: PageAnswer, number: number, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof PageLoop)
      throw new PagingLoopError(subject, number, error.message, { requestId: answer.requestId });
    if (!(error instanceof PageValueError)) throw error;
    throw new SchemaMismatchError(
      subject,
      error.issues.map(({ path, found }) => ({ path, message: `page ${number} ${found}` })),
      { status: answer.status, requestId: answer.requestId },
    );
  }
}

/** The debug entry of a read the paginator ended: the stop condition fired on this page (a stop status: with it). */
function ended(log: Logger, subject: string, page: number, status?: number): void {
  if (status === undefined)
    log.debug(`${subject}: page ${page} is the last; paging ended`, { pagingEnded: 'last-page', page });
  else
    log.debug(`${subject}: page ${page} answered ${status}, past the last page; paging ended`, {
      pagingEnded: 'last-page',
      page,
      status,
    });
}
