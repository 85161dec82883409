import { cursorPaginator, defineAction } from '@plugboard/sdk';
import { z } from 'zod';
import { BUDGETS, PAGING } from '../contract.js';
import { PassThroughBody } from '../entities.js';

/**
 * The operations known only by method and path. Their bodies are JSON objects passed through
 * without invented fields; lists page with the assumed `?limit=&cursor=` / `{data, next_cursor}`
 * scheme. They draw on the 120-a-minute budget of the operations other than hospital cash quotes.
 */

interface PassThroughSpec<E extends z.ZodType> {
  key: string;
  label: string;
  description: string;
  /** Known path, e.g. `/v2/motor/quotes`. */
  path: string;
  entity: E;
}

const ListInput = z.strictObject({
  page_size: z
    .number()
    .int()
    .min(1)
    .max(PAGING.maxLimit)
    .default(PAGING.defaultLimit)
    .describe(`Records asked for per page (1 to ${PAGING.maxLimit}; assumed paging).`),
});

/** The assumed scheme: `{data, next_cursor}`, the cursor sent back as `?cursor=`, until none comes. */
const byCursor = cursorPaginator({
  records: PAGING.dataField,
  cursor: { from: PAGING.nextCursorField, to: { query: PAGING.cursorParam } },
});

/** `GET <path>`, every page, oldest first. */
export function listAction<E extends z.ZodType>(spec: PassThroughSpec<E>) {
  return defineAction({
    ...spec,
    direction: 'source',
    input: ListInput,
    budget: BUDGETS.other,
    paginator: byCursor,
    read: (ctx, input) => ctx.pages<z.input<E>>({ path: spec.path, query: { [PAGING.limitParam]: input.page_size } }),
  });
}

interface CreateSpec<I extends z.ZodType, E extends z.ZodType> extends PassThroughSpec<E> {
  /**
   * `quote`: stores a quote the list shows, binding nothing, so a repeated request is harmless;
   * `policy`: binds real cover, billable (so approved before production and never retried).
   */
  kind: 'quote' | 'policy';
  /** The body's schema; by default any JSON object. */
  input?: I;
}

/** `POST <path>` with the input as the body, as is. */
export function createAction<E extends z.ZodType, I extends z.ZodType = typeof PassThroughBody>(
  spec: CreateSpec<I, E>,
) {
  const { kind, input, ...rest } = spec;
  const policy = kind === 'policy';
  return defineAction({
    ...rest,
    direction: 'destination',
    input: (input ?? PassThroughBody) as I,
    effect: { writes: true, idempotent: false, destructive: false },
    ...(policy ? { billable: true } : { retry: 'safe' as const }),
    budget: BUDGETS.other,
    write: (ctx, body) => ctx.http.post<z.input<E>>(spec.path, body),
  });
}
