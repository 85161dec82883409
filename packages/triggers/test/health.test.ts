import { describe, expect, it } from 'vitest';
import { deliver, receipts, startReceiver, stateFolder, testClock, trigger, useCleanup } from './support.js';

/**
 * `GET /health` of an embedded receiver, over real HTTP: it takes deliveries whenever it
 * listens. A probe is no delivery: it leaves no receipt and uses none of a trigger's rate.
 */

useCleanup();

describe("the receiver's health", () => {
  it('answers 200 ok to GET and HEAD, 405 to anything else, with no receipt and no rate used', async () => {
    const stateDir = await stateFolder();
    const clock = testClock();
    const { receiver, urls } = await startReceiver({
      stateDir,
      clock,
      config: { triggers: [trigger({ maxDeliveriesPerMinute: 1 })] },
    });
    const health = `${receiver.url}/health`;
    for (const url of [health, `${health}?from=balancer`]) {
      const answer = await fetch(url);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(await answer.json()).toEqual({ status: 'ok' });
    }
    const head = await fetch(health, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    const posted = await fetch(health, { method: 'POST', body: '{}' });
    expect(posted.status).toBe(405);
    expect(posted.headers.get('allow')).toBe('GET, HEAD');
    expect(await posted.json()).toEqual({ code: 'method_not_allowed' });
    // The trigger's one delivery a minute is still there, and it is the only receipt.
    const delivered = await deliver(urls.trg_orders!, clock, { type: 'order.created' });
    expect(delivered.body).toMatchObject({ accepted: true });
    expect((await receipts(stateDir)).map((receipt) => receipt.status)).toEqual(['accepted']);
  });
});
