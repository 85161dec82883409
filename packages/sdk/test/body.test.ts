import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTransport, readAll } from '../src/index.js';
import { example } from './support/connector.js';
import { useHarness } from './support/harness.js';

const h = useHarness();

// "é" is two bytes in UTF-8; the answer arrives in chunks that cut through it.
const name = 'café '.repeat(2000);
const answer = Buffer.from(JSON.stringify({ id: 'a', name, updated_at: '2026-01-01T00:00:00Z' }), 'utf8');

describe('an answer that arrives in chunks', () => {
  it.each(['undici', 'fetch', 'http'] as const)('is read whole and decoded once, through %s', async (via) => {
    await h.start(async (_, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      // Every cut falls inside an "é" (bytes 3 and 4 of each "café ").
      for (let at = 0; at < answer.length; ) {
        const cut = Math.min(answer.length, answer.indexOf(0xc3, at + 1000) + 1 || answer.length);
        res.write(answer.subarray(at, cut));
        at = cut;
        await sleep(1);
      }
      res.end();
    });
    const transport = createTransport({ via });
    try {
      const { records } = await readAll(
        example,
        'items.get',
        h.options({ input: { id: 'a' }, connection: { baseUrl: h.server.url }, transport }),
      );
      expect(records).toEqual([{ id: 'a', name, updated_at: '2026-01-01T00:00:00Z' }]);
    } finally {
      await transport.close();
    }
  });
});
