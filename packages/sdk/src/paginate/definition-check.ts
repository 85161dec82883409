import type { z } from 'zod';
import type { NewerThan, SourceAction } from '../definition/action.js';
import { optionValueSchema } from '../definition/options.js';
import { checkpointProblems } from '../checkpoint.js';

const FORMATS = ['as-is', 'iso', 'unix', 'unix-ms'];
const ORDERS = ['oldest-first', 'newest-first'];

/** The problems of a source's declared paginator and incremental reading (its watermark), each naming the field. */
export function pagingProblems(action: SourceAction, shape: Record<string, z.ZodType> | undefined): string[] {
  const problems: string[] = [];
  const { paginator, incremental } = action;
  if (paginator !== undefined) {
    if (
      typeof paginator?.first !== 'function' ||
      typeof paginator.next !== 'function' ||
      typeof paginator.records !== 'function'
    )
      problems.push('paginator: must have first, records and next functions');
    else for (const problem of paginator.problems?.() ?? []) problems.push(`paginator: ${problem}`);
  }
  if (!incremental) return problems;
  problems.push(...checkpointProblems(incremental));
  const { cursorField, tieBreaker, newerThan, order } = incremental;
  if (!cursorField) problems.push('incremental reading needs a cursorField');
  else if (shape && !(cursorField in shape))
    problems.push(`the cursor field '${cursorField}' is not a field of the entity`);
  if (tieBreaker !== undefined && shape && !(tieBreaker in shape))
    problems.push(`incremental.tieBreaker: '${tieBreaker}' is not a field of the entity`);
  if (order !== undefined && !ORDERS.includes(order))
    problems.push(`incremental.order must be 'oldest-first' or 'newest-first', not ${JSON.stringify(order)}`);
  if (newerThan !== undefined) {
    const cursor = shape && cursorField && Object.hasOwn(shape, cursorField) ? shape[cursorField] : undefined;
    problems.push(...newerThanProblems(newerThan, cursorField, cursor));
  }
  return problems;
}

/** The problems of `incremental.newerThan`, given the cursor field's schema when the entity declares it. */
function newerThanProblems(newerThan: NewerThan, cursorField: string, cursor: z.ZodType | undefined): string[] {
  const problems: string[] = [];
  const { query, format = 'as-is', earlierMs = 0 } = newerThan;
  if (typeof query !== 'string' || query === '') problems.push('incremental.newerThan.query needs the query parameter');
  if (!FORMATS.includes(format))
    problems.push(`incremental.newerThan.format must be one of ${FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  else if (earlierMs !== 0 && format === 'as-is')
    problems.push(
      "incremental.newerThan.earlierMs needs a format that is a time ('iso', 'unix' or 'unix-ms'); 'as-is' sends the cursor value as the provider wrote it",
    );
  // A number has no instant without its unit, which only unix (seconds) and unix-ms name.
  else if (format === 'iso' && cursor && optionValueSchema(cursor).def.type === 'number')
    problems.push(
      `incremental.newerThan.format 'iso' needs a cursor of ISO 8601 instants; the cursor field '${cursorField}' is a number: say its unit with 'unix' (seconds) or 'unix-ms' (milliseconds)`,
    );
  if (!(Number.isInteger(earlierMs) && earlierMs >= 0))
    problems.push('incremental.newerThan.earlierMs must be a whole number of zero or more');
  return problems;
}
