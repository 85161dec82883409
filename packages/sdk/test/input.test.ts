import { beforeEach, describe, expect, it } from 'vitest';
import { defineAction, defineConnector, InvalidInputError, runAction, writeAction } from '../src/index.js';
import { prepareRun } from '../src/host.js';
import { example, ordersCreate } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

const h = useHarness();
beforeEach(async () => {
  await h.start((_, res) => json(res, 201, { order_id: 'o1', amount: '10.00' }));
});

describe('input validation', () => {
  it('lists every field path and problem, and sends nothing', async () => {
    const error = await writeAction(
      example,
      'orders.create',
      h.options({
        input: { customer: { email: 'not-an-email' }, quantity: 1.5, note: 7 },
        connection: { baseUrl: h.server.url },
      }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    const issues = (error as InvalidInputError).issues.map((issue) => issue.path).sort();
    expect(issues).toEqual(['customer.email', 'customer.name', 'note', 'quantity']);
    expect((error as Error).message).toContain('example orders.create: input: ');
    expect((error as Error).message).toMatch(/customer\.email: .*email/i);
    expect(h.server.requests).toHaveLength(0);
  });

  it('applies defaults before the action runs', async () => {
    const pages = runAction(example, 'items.list', h.options({ input: {}, connection: { baseUrl: h.server.url } }));
    await pages.next().catch(() => undefined);
    expect(h.server.requests[0]?.query.get('limit')).toBe('10');
  });

  it('refuses a bad checkpoint before any request', async () => {
    const error = await runAction(
      example,
      'items.list',
      h.options({ input: {}, checkpoint: { updated_after: 5 }, connection: { baseUrl: h.server.url } }),
    )
      .next()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues[0]?.path).toBe('checkpoint.updated_after');
    expect(h.server.requests).toHaveLength(0);
  });

  it('names an unknown action and lists the real ones', async () => {
    await expect(writeAction(example, 'orders.cancel', h.options({ input: {} }))).rejects.toThrow(
      "connector 'example' has no action 'orders.cancel'; it has items.list, items.get, orders.create",
    );
  });
});

describe('checks that depend on where the run goes', () => {
  // The same order action, refusing a note in production: a check the schema alone cannot make.
  const strict = defineConnector({
    ...example,
    key: 'strict',
    actions: [
      defineAction({
        ...ordersCreate,
        check: (input, { environment }) =>
          environment === 'production' && input.note !== undefined
            ? [{ path: 'note', message: 'notes are not sent in production' }]
            : [],
      }),
    ],
  });
  const input = { customer: { email: 'ada@example.com', name: 'Ada' }, quantity: 1, note: 'hi' };

  it('refuse the input before the approval gate and before any request', async () => {
    expect(() =>
      prepareRun(strict, 'orders.create', { input, environment: 'production', connection: { baseUrl: h.server.url } }),
    ).toThrow('strict orders.create: input: note: notes are not sent in production');
    const error = await writeAction(
      strict,
      'orders.create',
      h.options({ input, environment: 'production', connection: { baseUrl: h.server.url } }),
    ).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(h.server.requests).toHaveLength(0);
  });

  it('let the same input through elsewhere', async () => {
    expect(
      prepareRun(strict, 'orders.create', { input, environment: 'sandbox', connection: { baseUrl: h.server.url } })
        .input,
    ).toEqual(input);
  });
});
