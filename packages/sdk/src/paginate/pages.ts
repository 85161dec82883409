import type { Clock } from '../clock.js';
import { CancelledError, PagingLoopError, SchemaMismatchError } from '../errors.js';
import type { Logger } from '../log.js';
import { LoopGuard } from './guard.js';
import {
  MissingPagingValue,
  type PageAnswer,
  type PageRequest,
  type Paginator,
  type PagingEnd,
  type RecordPage,
} from './paginator.js';

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
  const { maxPages, maxRecords, maxMs, recordKey = 'id', recordsPath = '(records)' } = paginator;
  const guard = new LoopGuard();
  const started = clock.now();
  let next: PageRequest | undefined = paginator.first(request);
  let previous: URL | undefined;
  let read = 0;
  for (let number = 1; next; number += 1) {
    if (signal.aborted) throw new CancelledError(`${subject}: the run was cancelled before page ${number}`);
    const limit: { name: PagingEnd; value: number } | undefined =
      maxPages !== undefined && number > maxPages
        ? { name: 'maxPages', value: maxPages }
        : maxMs !== undefined && clock.now() - started >= maxMs
          ? { name: 'maxMs', value: maxMs }
          : undefined;
    if (limit) {
      log.warn(
        `${subject}: stopped paging at ${limit.name} (${limit.value}) before page ${number}; more pages may follow`,
        { pagingEnded: limit.name, page: number },
      );
      return;
    }
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
    const answer = await fetch.send(current, url);
    const records = paginator.records(answer);
    if (!records) {
      throw new SchemaMismatchError(
        subject,
        [{ path: recordsPath, message: `page ${number} has no list of records here` }],
        {
          status: answer.status,
          requestId: answer.requestId,
        },
      );
    }
    if (guard.sameAsLast(records, recordKey)) {
      throw new PagingLoopError(subject, number, 'holds the same records as the page before it', {
        requestId: answer.requestId,
      });
    }
    read += records.length;
    try {
      next = paginator.next(answer, current, records, read);
    } catch (error) {
      if (!(error instanceof MissingPagingValue)) throw error;
      throw new SchemaMismatchError(
        subject,
        [{ path: error.path, message: `page ${number} has ${error.wanted} here (the stop condition reads it)` }],
        { status: answer.status, requestId: answer.requestId },
      );
    }
    let kept = records as unknown[];
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
    previous = url;
    yield { records: kept, number, requestId: answer.requestId, last: next === undefined };
  }
}

/** The debug entry of a read the paginator ended: the stop condition fired on this page. */
function ended(log: Logger, subject: string, page: number): void {
  log.debug(`${subject}: page ${page} is the last; paging ended`, { pagingEnded: 'last-page', page });
}
