import { z } from 'zod';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';

/** A small example connector for a task tracker: one incremental source, one billable destination. */

const Task = z.object({ id: z.string(), title: z.string(), done: z.boolean(), updated_at: z.iso.datetime() }).meta({ id: 'Task' });

const tasksList = defineAction({
  key: 'tasks.list',
  label: 'List tasks',
  description: 'Tasks changed since the last run, oldest change first.',
  direction: 'source',
  entity: Task,
  input: z.object({ limit: z.number().int().min(1).max(50).default(5) }),
  incremental: { cursorField: 'updated_at', checkpoint: z.object({ updated_after: z.iso.datetime() }) },
  async *read(ctx, input) {
    let cursor: string | undefined;
    do {
      const page = await ctx.http.get<{ data: z.input<typeof Task>[]; next_cursor?: string }>('/tasks', {
        query: { limit: input.limit, cursor, updated_after: ctx.checkpoint?.updated_after },
      });
      cursor = page.next_cursor;
      const last = page.data.at(-1);
      yield { records: page.data, ...(last ? { checkpoint: { updated_after: last.updated_at } } : {}) };
    } while (cursor);
  },
});

const Reminder = z.object({ reminder_id: z.string(), task_id: z.string(), cost: z.object({ amount: z.string(), currency: z.string() }) }).meta({ id: 'Reminder' });

const remindersCreate = defineAction({
  key: 'reminders.create',
  label: 'Send a paid SMS reminder',
  direction: 'destination',
  entity: Reminder,
  billable: true,
  retry: 'never',
  approval: 'production',
  input: z.object({ task_id: z.string().min(1), phone: z.string().regex(/^\+\d{8,15}$/, 'an international number like +27821234567') }),
  async write(ctx, input) {
    return ctx.http.post('/reminders', input);
  },
});

export const tasks = defineConnector({
  key: 'tasks',
  name: 'Tasks (example)',
  version: '0.0.0',
  vendor: null,
  category: 'productivity',
  status: 'alpha',
  summary: 'An example task tracker, to show the kit end to end.',
  auth: bearerToken(),
  rateLimits: { default: { limit: 20, per: 'second' } },
  limitations: ['Example only: it talks to the demo server.'],
  actions: [tasksList, remindersCreate],
});
