import { describe, expect, it } from 'vitest';
import { readAll, type Transport } from '../src/index.js';
import { example } from './support/connector.js';
import { useHarness } from './support/harness.js';
import { json } from './support/server.js';

/**
 * The `Transport` an author's test holds is a handle (`via`, `close()`): the pools, the network
 * policy and the budgets behind it stay inside the SDK, so a run takes only a transport that
 * `createTransport` or `createHostTransport` made.
 */

const h = useHarness();

describe('a transport handle', () => {
  it('runs on a transport createTransport made, and shows only how it sends', async () => {
    const server = await h.start((req, res) => json(res, 200, { id: 'a', name: 'A', updated_at: '2026-01-01' }));
    const read = await readAll(
      example,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url } }),
    );
    expect(read.records).toEqual([{ id: 'a', name: 'A', updated_at: '2026-01-01' }]);
    expect(h.transport.via).toBe('undici');
  });

  it('refuses one made otherwise, naming the field, before anything is sent', async () => {
    const server = await h.start((req, res) => json(res, 200, { id: 'a', name: 'A', updated_at: '2026-01-01' }));
    const lookalike: Transport = { via: 'undici', close: async () => undefined };
    const read = readAll(
      example,
      'items.get',
      h.options({ input: { id: 'a' }, connection: { baseUrl: server.url }, transport: lookalike }),
    );
    await expect(read).rejects.toThrow(
      new TypeError('transport: give one that createTransport or createHostTransport made'),
    );
    expect(server.requests).toHaveLength(0);
  });
});
