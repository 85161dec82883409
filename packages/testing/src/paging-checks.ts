import type { Action, Connector, ConnectorError, Paginator } from '@plugboard/sdk';
import { type Fixture, fixturePath, type RecordedCall, type RecordedResponse, readFixture } from './fixture.js';
import type { IncrementalProbe } from './probes.js';
import { replayFixture, type ReplayResult } from './replay.js';
import type { Scenario } from './scenario.js';

/**
 * The paging checks of the standard suite, for sources that declare a paginator: a recorded read
 * must end at the paginator's stop condition, and a variant of a recorded multi-page read that
 * loops must be stopped by the loop guard. Each returns its problems (empty when all is well).
 */

/** How a read may end and still have read the whole list (newest first, down to its checkpoint). */
const ENDS_AT_STOP = new Set(['last-page', 'checkpoint']);

/** Paginators that read their next page from the answer, so an answer can send them back to a page read before. */
const FROM_ANSWER = new Set(['cursor', 'next-url', 'link-header']);

/** The paginator a source declares, if any. */
export function declaredPaginator(action: Action | undefined): Paginator | undefined {
  return action?.direction === 'source' ? action.paginator : undefined;
}

/** The recorded answers of a read's pages: its successful calls in order (a retried call's failures, and a status past the last page, left out). */
export function pageCalls(fixture: Fixture): RecordedCall[] {
  return fixture.calls.filter((call) => call.response.status >= 200 && call.response.status < 300);
}

/**
 * A replayed, successful run of a source that declares a paginator ended each paged read at the
 * paginator's stop condition (or, newest first, where its checkpoint began): not at `maxPages`,
 * `maxRecords` or `maxMs`, and not by the action leaving the pages unread. That every recorded
 * page was asked for, strict replay has checked already.
 */
export function pagingEndProblems(
  result: Pick<ReplayResult, 'scenario' | 'fixture' | 'pagingEnds' | 'error'>,
): string[] {
  const { scenario, fixture, pagingEnds } = result;
  if (result.error || fixture.calls.length === 0) return [];
  const where = `scenario '${scenario.name}' (${scenario.action})`;
  if (pagingEnds.length === 0) {
    return [
      `${where}: no paged read came to its paginator's last page; the action stopped reading pages (or read them without ctx.pages) before the stop condition fired`,
    ];
  }
  return pagingEnds
    .filter(({ ended }) => !ENDS_AT_STOP.has(ended))
    .map(
      ({ ended, page }) =>
        `${where}: paging stopped at ${ended} ${ended === 'maxRecords' ? 'on' : 'before'} page ${page}, not at the paginator's stop condition, so the read left part of the list unread; raise the limit, or record a list that fits in it`,
    );
}

/** A recorded read turned into one that loops, and the page the loop guard must stop it at. */
export interface LoopVariant {
  fixture: Fixture;
  page: number;
  /** What was changed, for messages. */
  change: string;
}

/**
 * A variant of a recorded read of two pages or more that loops. For a paginator that reads its
 * next page from the answer (a cursor, a next URL, a Link header), the last page answers with
 * the page before's answer and headers, its own records in place: it points back at itself, and
 * the guard must stop the page after it as one asked for again. For any other paginator, the last
 * page answers exactly as the page before did, and the guard must stop it for holding the same
 * records. Undefined when the recording has fewer than two pages or its records cannot be moved.
 */
export function loopVariant(fixture: Fixture, paginator: Paginator): LoopVariant | undefined {
  const pages = pageCalls(fixture);
  if (pages.length < 2) return undefined;
  const last = pages.at(-1)!;
  const before = pages.at(-2)!;
  const n = pages.length;
  if (paginator.kind !== undefined && FROM_ANSWER.has(paginator.kind)) {
    const path = paginator.recordsPath ?? '';
    const body =
      path === ''
        ? last.response.body
        : withValueAt(before.response.body, path, valueAt(last.response.body, path.split('.')));
    if (body === undefined) return undefined;
    return {
      fixture: answeredWith(fixture, last, { ...before.response, body }),
      page: n + 1,
      change: `page ${n} answers with page ${n - 1}'s cursor`,
    };
  }
  return {
    fixture: answeredWith(fixture, last, before.response),
    page: n,
    change: `page ${n} answers as page ${n - 1} did`,
  };
}

/** Where the scenario's fixture is, and the hosts replay may still reach. */
export type LoopProbe = Pick<IncrementalProbe, 'fixturesDir' | 'allowHosts'>;

/**
 * Replays the loop variant of a scenario's recorded read (`loopVariant`): the run must fail with
 * a `PagingLoopError` (`paging_loop`) naming the action and the page, having sent nothing the
 * recording does not hold.
 */
export async function pagingLoopProblems(
  connector: Connector,
  scenario: Scenario,
  probe: LoopProbe,
): Promise<string[]> {
  const where = `scenario '${scenario.name}' (${scenario.action})`;
  const paginator = declaredPaginator(connector.action(scenario.action));
  if (!paginator) return [`${where}: the action declares no paginator`];
  const path = fixturePath(probe.fixturesDir, scenario.name);
  const variant = loopVariant(await readFixture(path), paginator);
  if (!variant)
    return [`${where}: the recording has fewer than two pages, or no records at the paginator's path to move`];
  const subject = `${connector.key} ${scenario.action}`;
  const expected = `a PagingLoopError (paging_loop) naming '${subject}' and page ${variant.page}`;
  let result: ReplayResult;
  try {
    result = await replayFixture(
      { connector, scenario, ...(probe.allowHosts ? { allowHosts: probe.allowHosts } : {}) },
      variant.fixture,
      `${path} (a variant where ${variant.change})`,
    );
  } catch (error) {
    return [`${where}: where ${variant.change}, expected ${expected}; instead: ${(error as Error).message}`];
  }
  const error = result.error as (ConnectorError & { action?: unknown; page?: unknown }) | undefined;
  if (!error)
    return [
      `${where}: where ${variant.change}, expected ${expected}; the read ended with ${result.records.length} records`,
    ];
  if (error.code !== 'paging_loop' || error.action !== subject || error.page !== variant.page)
    return [`${where}: where ${variant.change}, expected ${expected}; got ${error.code}: ${error.message}`];
  return [];
}

/**
 * The fixture with one call's answer replaced, and the calls after it left out: the guard stops
 * the read there, before an answer past the last page (a 404 a `{ status }` stop ends on) is asked.
 */
function answeredWith(fixture: Fixture, call: RecordedCall, response: RecordedResponse): Fixture {
  const upTo = fixture.calls.slice(0, fixture.calls.indexOf(call) + 1);
  return { ...fixture, calls: upTo.map((each) => (each === call ? { ...each, response } : each)) };
}

function valueAt(value: unknown, steps: readonly string[]): unknown {
  let current = value;
  for (const step of steps) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[step];
  }
  return current;
}

/** A copy of `value` with `replacement` at the dotted path; undefined when the path's parent is not an object. */
function withValueAt(value: unknown, path: string, replacement: unknown): unknown {
  const steps = path.split('.');
  const copy = structuredClone(value);
  const parent = valueAt(copy, steps.slice(0, -1));
  if (replacement === undefined || parent === null || typeof parent !== 'object') return undefined;
  (parent as Record<string, unknown>)[steps.at(-1)!] = replacement;
  return copy;
}
