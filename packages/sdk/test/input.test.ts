import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTransport, InvalidInputError, runAction, writeAction, type Transport } from '../src/index.js';
import { example } from './support/connector.js';
import { json, startServer, type TestServer } from './support/server.js';

let server: TestServer;
let transport: Transport;

beforeEach(async () => {
  server = await startServer((_, res) => json(res, 201, { order_id: 'o1', amount: '10.00' }));
  transport = createTransport();
});
afterEach(async () => {
  await transport.close();
  await server.close();
});

const credential = () => 'test-credential-1234';

describe('input validation', () => {
  it('lists every field path and problem, and sends nothing', async () => {
    const error = await writeAction(example, 'orders.create', {
      input: { customer: { email: 'not-an-email' }, quantity: 1.5, note: 7 },
      connection: { baseUrl: server.url },
      credential,
      transport,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    const issues = (error as InvalidInputError).issues.map((issue) => issue.path).sort();
    expect(issues).toEqual(['customer.email', 'customer.name', 'note', 'quantity']);
    expect((error as Error).message).toContain('example orders.create: input: ');
    expect((error as Error).message).toMatch(/customer\.email: .*email/i);
    expect(server.requests).toHaveLength(0);
  });

  it('applies defaults before the action runs', async () => {
    const pages = runAction(example, 'items.list', { input: {}, connection: { baseUrl: server.url }, credential, transport });
    await pages.next().catch(() => undefined);
    expect(server.requests[0]?.query.get('limit')).toBe('10');
  });

  it('refuses a bad checkpoint before any request', async () => {
    const error = await runAction(example, 'items.list', {
      input: {},
      checkpoint: { updated_after: 5 },
      connection: { baseUrl: server.url },
      credential,
      transport,
    })
      .next()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).issues[0]?.path).toBe('checkpoint.updated_after');
    expect(server.requests).toHaveLength(0);
  });

  it('names an unknown action and lists the real ones', async () => {
    await expect(writeAction(example, 'orders.cancel', { input: {}, credential, transport })).rejects.toThrow(
      "connector 'example' has no action 'orders.cancel'; it has items.list, items.get, orders.create",
    );
  });
});
