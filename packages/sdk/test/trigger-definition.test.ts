import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  bearerToken,
  DefinitionError,
  defineConnector,
  defineTrigger,
  hmacSignature,
  standardWebhookSignature,
  type Trigger,
} from '../src/index.js';
import { itemsList } from './support/connector.js';

const Event = z.object({ id: z.string() }).meta({ id: 'ShopEvent' });

const sound = {
  key: 'orders.created',
  label: 'Order created',
  entity: Event,
  signature: standardWebhookSignature(),
  subscribe: async () => ({ id: 'sub_1' }),
  unsubscribe: async () => {},
  records: () => [],
} satisfies Trigger;

function problemsOf(make: () => unknown): string[] {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    return [...(error as DefinitionError).problems];
  }
  throw new Error('the definition was accepted');
}

const connector = (triggers: readonly Trigger[], rateLimits = {}) =>
  defineConnector({
    key: 'shop',
    name: 'Shop',
    version: '1.0.0',
    vendor: null,
    category: 'crm',
    status: 'beta',
    summary: 'A shop.',
    auth: bearerToken(),
    actions: [itemsList],
    triggers,
    rateLimits,
  });

describe('a trigger is checked when it is declared', () => {
  it('accepts a sound declaration, each signature form, and looks it up by key', () => {
    const custom = defineTrigger({ ...sound, key: 'orders.paid', signature: () => true });
    const hmac = defineTrigger({
      ...sound,
      key: 'orders.shipped',
      signature: hmacSignature({ header: 'x-signature', encoding: 'hex' }),
    });
    const shop = connector([defineTrigger(sound), custom, hmac]);
    expect(shop.trigger('orders.paid')).toBe(custom);
    expect(shop.trigger('nope')).toBeUndefined();
  });

  it('names each field that cannot work', () => {
    const problems = problemsOf(() =>
      defineTrigger({
        ...sound,
        key: 'Orders',
        entity: z.object({}),
        signature: 'hmac' as never,
        eventIdHeader: 'bad header',
        subscribe: undefined as never,
        renew: 'later' as never,
      }),
    );
    expect(problems).toEqual([
      "trigger 'Orders': key must look like `resource.event` in lower snake case",
      "trigger 'Orders': entity must be a named data type: give it .meta({ id: 'Name' })",
      "trigger 'Orders': signature must be standardWebhookSignature(), hmacSignature({ ... }), slackSignature() or (rawBody, headers, secret) => boolean",
      "trigger 'Orders': eventIdHeader must be an HTTP header name",
      "trigger 'Orders': subscribe must be a function",
      "trigger 'Orders': renew must be a function",
    ]);
  });

  it('refuses a key declared twice or an action key, and a budget not declared, naming the connector', () => {
    const trigger = defineTrigger(sound);
    const clash = defineTrigger({ ...sound, key: 'items.list', budget: 'hooks' });
    expect(problemsOf(() => connector([trigger, trigger, clash]))).toEqual([
      "connector 'shop': trigger 'orders.created': the key is declared twice",
      "connector 'shop': trigger 'items.list': the key is an action's key too: operations share one list",
      "connector 'shop': trigger 'items.list': the budget 'hooks' is not declared in rateLimits",
    ]);
  });
});
