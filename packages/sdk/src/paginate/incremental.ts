import type { Action, Incremental, NewerThan, Page } from '../definition/action.js';
import type { PagesStart } from '../context.js';
import { InvalidInputError } from '../errors.js';
import { excerpt } from '../excerpt.js';
import type { HttpClient, HttpRequest } from '../http/client.js';
import type { Logger } from '../log.js';
import { newerThanBound } from './newer-than.js';
import type { Paginator } from './paginator.js';
import { type Mark, rank, Watermark } from './watermark.js';

/**
 * `ctx.pages`: the pages of a declared paginator, through a declared watermark when the
 * source is incremental. The checkpoint is `{ <newerThan.query or cursorField>: value,
 * seen_ids }`; it is committed after delivery as every page's checkpoint is.
 */
export async function* declaredPages(
  http: HttpClient,
  log: Logger,
  subject: string,
  action: Action,
  checkpoint: unknown,
  request: HttpRequest,
  { from, notBefore }: PagesStart = {},
): AsyncGenerator<Page> {
  const paginator: Paginator | undefined = action.direction === 'source' ? action.paginator : undefined;
  if (!paginator) throw new TypeError(`${subject}: ctx.pages needs the action to declare a paginator`);
  const incremental = action.direction === 'source' ? action.incremental : undefined;
  if (!incremental) {
    for await (const page of http.paginate(request, paginator)) yield { records: page.records };
    return;
  }
  const key = checkpointKey(incremental);
  // Records are told apart by the entity's key the source declares: the paginator's own, else the tie-breaker.
  const keyed: Paginator =
    incremental.tieBreaker !== undefined && paginator.recordKey === undefined
      ? Object.create(paginator, { recordKey: { value: incremental.tieBreaker } })
      : paginator;
  let start: Mark | undefined = checkpoint
    ? { at: (checkpoint as Record<string, string | number>)[key]!, seen_ids: (checkpoint as Mark).seen_ids ?? [] }
    : from === undefined
      ? undefined
      : { at: from, seen_ids: [] };
  // Where the start came from, for an error: the checkpoint's field, or the `ctx.pages` option.
  let origin = checkpoint ? `checkpoint.${key}` : 'from';
  if (start && notBefore !== undefined && rank(start.at) < rank(notBefore)) {
    start = { at: notBefore, seen_ids: [] };
    origin = 'notBefore';
  }
  const mark = new Watermark(
    {
      subject,
      cursor: incremental.cursorField,
      id: incremental.tieBreaker ?? 'id',
      requestId: () => http.lastRequestId,
    },
    start,
  );
  const { newerThan } = incremental;
  const asked = start && newerThan ? askedFrom(subject, request, newerThan, start.at, origin) : request;
  const newestFirst = incremental.order === 'newest-first';
  const checkpointOf = () => {
    const at = mark.mark;
    return at ? { checkpoint: { [key]: at.at, seen_ids: at.seen_ids } } : {};
  };
  for await (const page of http.paginate(asked, keyed)) {
    const records: unknown[] = [];
    let reached = false;
    for (const record of page.records) {
      if (mark.isNew(record)) records.push(record);
      else reached = true;
    }
    for (const record of records) mark.note(record);
    if (!newestFirst) yield { records, ...checkpointOf() };
    // Newest first, the checkpoint moves on only once the read has come down to where the last one began.
    else if (reached || page.last) {
      if (!page.last)
        log.debug(`${subject}: page ${page.number} came down to the checkpoint; paging ended`, {
          pagingEnded: 'checkpoint',
          page: page.number,
        });
      yield { records, ...checkpointOf() };
      return;
    } else yield { records };
  }
}

/** The checkpoint's field for the cursor value. */
export function checkpointKey(incremental: Incremental<unknown>): string {
  return incremental.newerThan?.query ?? incremental.cursorField;
}

/** The request with its newer-than parameter from `at`; refused, naming where `at` came from, when it is no such value. */
function askedFrom(subject: string, request: HttpRequest, newerThan: NewerThan, at: unknown, origin: string) {
  const bound = typeof at === 'string' || typeof at === 'number' ? newerThanBound(newerThan, at) : undefined;
  if (bound === undefined) {
    const format = newerThan.format ?? 'as-is';
    const shown = at === undefined ? 'a missing value' : excerpt(String(JSON.stringify(at)));
    const message = `${newerThan.query} cannot be written from ${shown} in the format '${format}'`;
    throw new InvalidInputError(subject, [{ path: origin, message }]);
  }
  return { ...request, query: { ...request.query, [newerThan.query]: bound } };
}
