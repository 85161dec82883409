import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  bearerToken,
  catalogueEntry,
  defineAction,
  defineConnector,
  DefinitionError,
  type ConnectorDefinition,
} from '../src/index.js';
import { example, Item, itemsList, ordersCreate } from './support/connector.js';

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
