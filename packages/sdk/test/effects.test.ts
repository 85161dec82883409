import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  annotationsOf,
  approvalOf,
  bearerToken,
  catalogueEntry,
  type ConnectorDefinition,
  DefinitionError,
  defineAction,
  defineConnector,
  effectOf,
  needsApproval,
  retryPolicy,
} from '../src/index.js';
import { Item, itemsList, Order } from './support/connector.js';

const base: Omit<ConnectorDefinition, 'actions'> = {
  key: 'shop',
  name: 'Shop',
  version: '1.0.0',
  vendor: null,
  category: 'crm',
  status: 'beta',
  summary: 'A shop.',
  auth: bearerToken(),
  baseUrl: 'https://shop.invalid/api',
};

const input = z.object({ id: z.string() });
const write = async () => ({ order_id: 'o-1', amount: '1.00' });

function problemsOf(...actions: ConnectorDefinition['actions']): string[] {
  try {
    defineConnector({ ...base, actions });
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return [...(error as DefinitionError).problems];
  }
  throw new Error('the definition was accepted');
}

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
    const silent = defineAction({
      key: 'orders.create',
      label: 'Order',
      direction: 'destination',
      entity: Order,
      input,
      write,
    });
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
    const quote = defineAction({
      key: 'quotes.create',
      label: 'Quote',
      direction: 'destination',
      effect: 'read',
      entity: Order,
      input,
      write,
    });
    expect(retryPolicy(quote)).toBe('safe');
    expect(annotationsOf(quote).readOnlyHint).toBe(true);
    expect(() => defineConnector({ ...base, actions: [quote] })).not.toThrow();
  });

  it('retries follow from the effect: idempotent writes are retried, others only when the author says so', () => {
    const put = defineAction({
      key: 'items.replace',
      label: 'Replace',
      direction: 'destination',
      effect: { writes: true, idempotent: true, destructive: true },
      entity: Item,
      input,
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
      key: 'orders.place',
      label: 'Place',
      direction: 'destination',
      effect: { writes: true, idempotent: false, destructive: false },
      billable: true,
      entity: Order,
      input,
      write,
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
    expect(problemsOf(billableRetried, billableUnapproved, destructiveRead, misspelt, halfSaid)).toEqual([
      "connector 'shop': action 'items.paid': a billable action is never retried automatically: leave retry out (retry: 'safe' is refused)",
      "connector 'shop': action 'items.free': a billable action must be approved before it spends money: leave approval out (before production) or set approval: 'always'",
      "connector 'shop': action 'items.wipe': an action that only reads cannot be destructive: set effect: { writes: true, idempotent, destructive: true }, or effect: 'read'",
      "connector 'shop': action 'items.odd': effect must be 'read' or { writes: true, idempotent: boolean, destructive: boolean }, not \"readonly\"",
      "connector 'shop': action 'items.half': effect must be 'read' or { writes: true, idempotent: boolean, destructive: boolean }, not {\"writes\":true,\"idempotent\":true}",
    ]);
  });

  it('the catalogue entry publishes the effect of each operation beside the retry it gives', () => {
    const quote = defineAction({
      key: 'quotes.create',
      label: 'Quote',
      direction: 'destination',
      effect: 'read',
      entity: Order,
      input,
      write,
    });
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
