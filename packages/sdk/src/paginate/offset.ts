import { declared, withValue } from './declared.js';
import type { OffsetOptions } from './paged-options.js';
import { PageLoop, type PageRequest, type Paginator, STEP_BACK } from './paginator.js';
import { totalAt, totalPath } from './stops.js';

/**
 * An offset moved on by the records read, with a limit. Records deleted before the reader while
 * it reads shift the rest back, and the next offset would pass over as many survivors. Where a
 * `{ total }` is declared, a page whose total is lower than the page before's shows that: the page
 * is set aside and the next one asked from its offset less the shrink, and the paging loop drops
 * the records among them it delivered already, by key (pages.ts). Without a total nothing shows it.
 */

/** What an offset read carries on each request it builds: the last page's total, the first page's, the steps back so far. */
interface OffsetRun {
  total: number;
  first: number;
  stepped: number;
}

const RUN: unique symbol = Symbol('plugboard.offsetRun');

type Carrying = PageRequest & { [RUN]?: OffsetRun; [STEP_BACK]?: number };

/** An offset moved on by the records read, with a limit; stepped back when a declared total shrinks. */
export function offsetPaginator(options: OffsetOptions): Paginator {
  const { param, initial = 0 } = options.offset ?? ({} as Partial<OffsetOptions['offset']>);
  const problems = param ? [] : ['offset needs the parameter it is sent as'];
  if (!options.pageSize) problems.push('an offset paginator needs a pageSize (the limit)');
  const counted = totalPath(options.stop ?? []);
  /** The request for `offset`, carrying `run`; a step back the request before followed is not carried on. */
  const at = (offset: number, request: PageRequest, run?: OffsetRun): Carrying => {
    const { [STEP_BACK]: _followed, ...rest } = request as Carrying;
    return { ...withValue(rest, { query: param! }, offset), ...(run ? { [RUN]: run } : {}) };
  };

  /** The request that sets this page aside and asks again from its offset less the shrink. */
  const stepBack = (request: PageRequest, offset: number, total: number, before: OffsetRun): Carrying => {
    const shrink = before.total - total;
    const stepped = before.stepped + shrink;
    // Each step back is a shrink; more of them than the records there were is a total going up and down for ever.
    if (stepped > before.first)
      throw new PageLoop(
        `shows the list ${shrink} records shorter: the steps back would add up to ${stepped} records, more than the ${before.first} it held on page 1`,
      );
    const from = Math.max(initial, offset - shrink);
    // The records delivered already that the next pages can hold: those now between `from` and this page.
    return {
      ...at(from, request, { total, first: before.first, stepped }),
      [STEP_BACK]: Math.max(0, Math.min(offset, total) - from),
    };
  };

  return declared(options, {
    name: 'offset',
    stops: ['empty-page'],
    // An empty page ends the read whatever `stop` says: the window is past the end, and asking it again would loop.
    endsByItself: true,
    problems,
    first: (request) => withValue(request, { query: param! }, initial),
    next: ({ answer, request, records, stopped }) => {
      const offset = Number(request.query?.[param!] ?? initial);
      const reached = offset + records.length;
      const total = counted === undefined ? undefined : totalAt(answer, counted);
      const before = (request as Carrying)[RUN];
      if (total !== undefined && before && total < before.total) return stepBack(request, offset, total, before);
      if (records.length === 0 || stopped(reached)) return undefined;
      return at(
        reached,
        request,
        total === undefined ? undefined : { total, first: before?.first ?? total, stepped: before?.stepped ?? 0 },
      );
    },
  });
}
