import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bearerToken, defineAction, defineConnector, DefinitionError, type ConnectorDefinition } from '../src/index.js';
import { annotationsOf, approvalOf, effectOf, catalogueEntry, needsApproval, retryPolicy } from '../src/host.js';
import { example, Item, itemsList, Order, ordersCreate } from './support/connector.js';

const base: Omit<ConnectorDefinition, 'actions'> = {
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  vendor: 'Shop Inc.',
  category: 'crm',
  status: 'beta',
  summary: 'A shop.',
  auth: bearerToken(),
  baseUrl: 'https://shop.invalid/api',
};

function problemsOf(definition: ConnectorDefinition): string[] {
  try {
    defineConnector(definition);
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return [...(error as DefinitionError).problems];
  }
  throw new Error('the definition was accepted');
}

describe('definitions are checked when they are made', () => {
  it('accepts a sound connector and looks actions up by key', () => {
    expect(example.action('items.list')).toBe(itemsList);
    expect(example.action('nope')).toBeUndefined();
    expect(example.auth.map((scheme) => scheme.id)).toEqual(['bearer', 'x-api-key']);
  });

  it('refuses duplicate action keys, naming connector and action', () => {
    expect(problemsOf({ ...base, actions: [itemsList, itemsList] })).toContain(
      "connector 'shop': action 'items.list': the key is declared twice",
    );
  });

  it('refuses an incremental destination', () => {
    const bad = { ...ordersCreate, incremental: { cursorField: 'order_id' } } as unknown as typeof ordersCreate;
    expect(problemsOf({ ...base, actions: [bad] })).toContain(
      "connector 'shop': action 'orders.create': a destination cannot be incremental",
    );
  });

  it('refuses a billable action with automatic retry, or without approval', () => {
    const retried = defineAction({ ...ordersCreate, retry: 'safe' });
    const unapproved = defineAction({ ...ordersCreate, key: 'orders.place', approval: 'none' });
    const problems = problemsOf({ ...base, actions: [retried, unapproved] });
    expect(problems).toContain(
      "connector 'shop': action 'orders.create': a billable action is never retried automatically: leave retry out (retry: 'safe' is refused)",
    );
    expect(
      problems.some((problem) =>
        problem.startsWith("connector 'shop': action 'orders.place': a billable action must be approved"),
      ),
    ).toBe(true);
  });

  it('refuses unnamed entities, unknown cursor fields, undeclared budgets and bad keys', () => {
    const unnamed = defineAction({
      ...itemsList,
      key: 'things.list',
      entity: z.object({ id: z.string(), updated_at: z.string() }),
    });
    const cursor = defineAction({ ...itemsList, key: 'items.scan', incremental: { cursorField: 'modified' } });
    const budget = defineAction({ ...itemsList, key: 'items.page', budget: 'bulk' });
    const key = defineAction({ ...itemsList, key: 'List Items' });
    const problems = problemsOf({ ...base, key: 'Shop!', version: 'one', actions: [unnamed, cursor, budget, key] });
    expect(problems).toEqual(
      expect.arrayContaining([
        "connector 'Shop!': the key must be lower case letters, digits, - or _",
        'connector \'Shop!\': version must be a semantic version, not "one"',
        "connector 'Shop!': action 'things.list': the entity must be a named data type: give it .meta({ id: 'Name' })",
        "connector 'Shop!': action 'items.scan': the cursor field 'modified' is not a field of the entity",
        "connector 'Shop!': action 'items.page': the budget 'bulk' is not declared in rateLimits",
        "connector 'Shop!': action 'List Items': the key must look like `resource.verb` in lower snake case",
      ]),
    );
  });

  it('refuses bad budgets, base URLs and categories', () => {
    const problems = problemsOf({
      ...base,
      baseUrl: 'ftp://shop.invalid',
      category: 'toys' as never,
      rateLimits: { default: { limit: 0, per: 'week' as never } },
      actions: [itemsList],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'connector \'shop\': baseUrl must be an http(s) URL, not "ftp://shop.invalid"',
        "connector 'shop': rate budget 'default': limit must be a whole number of at least 1",
        "connector 'shop': rate budget 'default': per must be second, minute, hour or day",
      ]),
    );
    expect(problems.some((problem) => problem.startsWith("connector 'shop': category must be one of"))).toBe(true);
  });

  it('gives the catalogue entry of a connector with direction and approval per operation', () => {
    const entry = catalogueEntry(example);
    expect(entry).toMatchObject({
      key: 'example',
      categoryLabel: 'Developer tools',
      implemented: true,
      vendor: null,
      documentationUrl: null,
    });
    expect(
      entry.operations.map((operation) => [
        operation.key,
        operation.mode,
        operation.approvalRequired,
        operation.entity,
      ]),
    ).toEqual([
      ['items.get', 'source', false, 'Item'],
      ['items.list', 'source', false, 'Item'],
      ['orders.create', 'destination', true, 'Order'],
    ]);
    expect(entry.operations.find((operation) => operation.key === 'orders.create')).toMatchObject({
      billable: true,
      retry: 'never',
    });
    expect(JSON.stringify(entry.authentication)).not.toMatch(/secret|token"/i);
    expect(Item.meta()?.id).toBe('Item');
  });

  it('marks a connector with a declared but unwritten action as not implemented', () => {
    const planned = defineAction({
      key: 'items.archive',
      label: 'Archive',
      direction: 'destination',
      entity: Item,
      input: z.object({}),
    });
    const connector = defineConnector({ ...base, actions: [itemsList, planned] });
    expect(catalogueEntry(connector).implemented).toBe(false);
  });
});

/** A destination that says nothing of its effect, and a quote: a destination that reads only. */
const silent = defineAction({
  key: 'orders.create',
  label: 'Order',
  direction: 'destination',
  entity: Order,
  input: z.object({ id: z.string() }),
  write: async () => ({ order_id: 'o-1', amount: '1.00' }),
});
const quote = defineAction({ ...silent, key: 'quotes.create', label: 'Quote', effect: 'read' });

describe('effects: what an action does, apart from how its results come back', () => {
  it('a source reads only, may be retried and needs no approval, unless it says otherwise', () => {
    expect(effectOf(itemsList)).toEqual({ writes: false, idempotent: true, destructive: false });
    expect(retryPolicy(itemsList)).toBe('safe');
    expect(approvalOf(itemsList)).toBe('none');
    expect(annotationsOf(itemsList)).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
  });

  it('a destination that says nothing is read the safest way: a destructive write, never retried', () => {
    expect(effectOf(silent)).toEqual({ writes: true, idempotent: false, destructive: true });
    expect(retryPolicy(silent)).toBe('never');
    expect(annotationsOf(silent)).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: true,
    });
  });

  it('a destination that only reads (a quote) is retried like a source and keeps returning one result', () => {
    expect(retryPolicy(quote)).toBe('safe');
    expect(annotationsOf(quote).readOnlyHint).toBe(true);
    expect(() => defineConnector({ ...base, actions: [quote] })).not.toThrow();
  });

  it('retries follow from the effect: idempotent writes are retried, others only when the author says so', () => {
    const put = defineAction({
      ...silent,
      key: 'items.replace',
      effect: { writes: true, idempotent: true, destructive: true },
    });
    const post = defineAction({
      ...put,
      key: 'items.add',
      effect: { writes: true, idempotent: false, destructive: false },
    });
    const keyed = defineAction({ ...post, key: 'items.add_keyed', retry: 'safe' });
    const cautious = defineAction({ ...itemsList, key: 'items.scan', retry: 'never' });
    expect([put, post, keyed, cautious].map(retryPolicy)).toEqual(['safe', 'never', 'safe', 'never']);
    expect(annotationsOf(put)).toMatchObject({ readOnlyHint: false, idempotentHint: true, destructiveHint: true });
  });

  it('billable means never retried and approved before production, without saying so twice', () => {
    const paid = defineAction({
      ...silent,
      key: 'orders.place',
      effect: { writes: true, idempotent: false, destructive: false },
      billable: true,
    });
    const always = defineAction({ ...paid, key: 'orders.place_reviewed', approval: 'always' });
    expect(() => defineConnector({ ...base, actions: [paid, always] })).not.toThrow();
    expect(retryPolicy(paid)).toBe('never');
    expect(approvalOf(paid)).toBe('production');
    expect(needsApproval(paid, 'production')).toBe(true);
    expect(needsApproval(paid, 'sandbox')).toBe(false);
    expect(approvalOf(always)).toBe('always');
    expect(needsApproval(always, 'sandbox')).toBe(true);
  });

  it('a paid lookup reads only and is billable: never retried, approved before production', () => {
    const lookup = defineAction({ ...itemsList, key: 'items.appraise', billable: true });
    expect(() => defineConnector({ ...base, actions: [lookup] })).not.toThrow();
    expect(retryPolicy(lookup)).toBe('never');
    expect(approvalOf(lookup)).toBe('production');
    expect(annotationsOf(lookup).readOnlyHint).toBe(true);
  });

  it('refuses conflicting declarations, naming connector and action', () => {
    const billableRetried = defineAction({ ...itemsList, key: 'items.paid', billable: true, retry: 'safe' });
    const billableUnapproved = defineAction({ ...itemsList, key: 'items.free', billable: true, approval: 'none' });
    const destructiveRead = defineAction({
      ...itemsList,
      key: 'items.wipe',
      effect: { writes: false, idempotent: true, destructive: true } as never,
    });
    const misspelt = defineAction({ ...itemsList, key: 'items.odd', effect: 'readonly' as never });
    const halfSaid = defineAction({
      ...itemsList,
      key: 'items.half',
      effect: { writes: true, idempotent: true } as never,
    });
    expect(
      problemsOf({ ...base, actions: [billableRetried, billableUnapproved, destructiveRead, misspelt, halfSaid] }),
    ).toEqual([
      "connector 'shop': action 'items.paid': a billable action is never retried automatically: leave retry out (retry: 'safe' is refused)",
      "connector 'shop': action 'items.free': a billable action must be approved before it spends money: leave approval out (before production) or set approval: 'always'",
      "connector 'shop': action 'items.wipe': an action that only reads cannot be destructive: set effect: { writes: true, idempotent, destructive: true }, or effect: 'read'",
      "connector 'shop': action 'items.odd': effect must be 'read' or { writes: true, idempotent: boolean, destructive: boolean }, not \"readonly\"",
      "connector 'shop': action 'items.half': effect must be 'read' or { writes: true, idempotent: boolean, destructive: boolean }, not {\"writes\":true,\"idempotent\":true}",
    ]);
  });

  it('the catalogue entry publishes the effect of each operation beside the retry it gives', () => {
    const replace = defineAction({
      ...quote,
      key: 'items.replace',
      effect: { writes: true, idempotent: true, destructive: true },
      billable: true,
    });
    const entry = catalogueEntry(defineConnector({ ...base, actions: [itemsList, quote, replace] }));
    expect(
      entry.operations.map(({ key, mode, effect, retry, approvalRequired }) => ({
        key,
        mode,
        effect,
        retry,
        approvalRequired,
      })),
    ).toEqual([
      {
        key: 'items.list',
        mode: 'source',
        effect: { writes: false, idempotent: true, destructive: false },
        retry: 'safe',
        approvalRequired: false,
      },
      {
        key: 'items.replace',
        mode: 'destination',
        effect: { writes: true, idempotent: true, destructive: true },
        retry: 'never',
        approvalRequired: true,
      },
      {
        key: 'quotes.create',
        mode: 'destination',
        effect: { writes: false, idempotent: true, destructive: false },
        retry: 'safe',
        approvalRequired: false,
      },
    ]);
  });
});
