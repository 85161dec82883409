import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { z } from 'zod';

/**
 * The sample connector the testing kit's own tests record, replay and run the
 * standard suite on: a cursor-paginated incremental source, a single-record
 * source and a billable destination that needs approval in production.
 */

export const Task = z.object({ id: z.string(), title: z.string(), updated_at: z.string() }).meta({ id: 'SampleTask' });
export const Account = z
  .object({ id: z.string(), name: z.string(), plan: z.string(), note: z.string(), session: z.string() })
  .meta({ id: 'SampleAccount' });
export const Invoice = z
  .object({ id: z.string(), customer: z.string(), amount_cents: z.number().int(), status: z.enum(['draft', 'issued']) })
  .meta({ id: 'SampleInvoice' });

interface TaskPage {
  data: z.input<typeof Task>[];
  /** An absolute next-page link, as some providers give, with the caller's token in its query. */
  paging: { next: string | null };
}

export const tasksList = defineAction({
  key: 'tasks.list',
  label: 'List tasks',
  description: 'Tasks in the order they changed, page by page, from a checkpoint on.',
  direction: 'source',
  entity: Task,
  input: z.object({ limit: z.number().int().min(1).max(100).default(2) }),
  incremental: { cursorField: 'updated_at', checkpoint: z.object({ updated_after: z.string() }) },
  async *read(ctx, input) {
    let query: Record<string, string | number | undefined> = {
      limit: input.limit,
      updated_after: ctx.checkpoint?.updated_after,
    };
    for (;;) {
      const page = await ctx.http.get<TaskPage>('/tasks', { query });
      const last = page.data.at(-1);
      const checkpoint = last ? { updated_after: last.updated_at } : ctx.checkpoint;
      yield { records: page.data, ...(checkpoint ? { checkpoint } : {}) };
      if (!page.paging.next) return;
      // Follow the provider's link: its query (cursor, token and all) is the next request's.
      query = Object.fromEntries(new URL(page.paging.next).searchParams);
    }
  },
});

export const accountGet = defineAction({
  key: 'account.get',
  label: 'Get the account',
  direction: 'source',
  entity: Account,
  input: z.object({}),
  async *read(ctx) {
    yield { records: [await ctx.http.get('/account')] };
  },
});

export const invoicesCreate = defineAction({
  key: 'invoices.create',
  label: 'Create an invoice',
  description: 'Issues an invoice; each one costs credits.',
  direction: 'destination',
  entity: Invoice,
  billable: true,
  retry: 'never',
  approval: 'production',
  input: z.object({
    customer: z.string().min(1),
    amount_cents: z.number().int().positive(),
    memo: z.string().optional(),
  }),
  async write(ctx, input) {
    return ctx.http.post('/invoices', input);
  },
});

export const sample = defineConnector({
  key: 'sample',
  name: 'Sample Tasks',
  version: '1.0.0',
  vendor: 'Sample Inc.',
  category: 'productivity',
  status: 'beta',
  summary: 'Tasks, the account and invoices of the sample provider (testing kit fixture).',
  documentationUrl: 'https://docs.sample.invalid/api',
  auth: bearerToken(),
  baseUrl: 'https://api.sample.invalid/v1',
  limitations: ['Invoices cannot be voided.'],
  actions: [tasksList, accountGet, invoicesCreate],
});
