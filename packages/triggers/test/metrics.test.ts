import { InvalidInputError } from '@plugboard/sdk';
import { connect } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { createReceiver, type StartPoll, type StartRun } from '../src/index.js';
import { pollTrigger } from './poll-support.js';
import { ORDERS } from './shop.js';
import {
  deliver,
  ENV,
  post,
  secondsOf,
  signed,
  startReceiver,
  stateFolder,
  testClock,
  trigger,
  useCleanup,
} from './support.js';

/**
 * The receiver's Prometheus metrics, scraped over real HTTP from their own port: each answer by
 * trigger and outcome, each run by how it ended.
 */

useCleanup();

const RUNS = { run: { connector: 'shop', action: 'orders.import', connection: 'shop' } };

/** The lines of the receiver's own metrics, as Prometheus reads them. */
async function scrape(url: string): Promise<string[]> {
  const answer = await fetch(url);
  expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
  return (await answer.text()).split('\n').filter((line) => line.startsWith('plugboard_trigger_'));
}

describe("the receiver's metrics", () => {
  it('count each answer by trigger and outcome and each run by how it ended, on a port of their own', async () => {
    const clock = testClock();
    const started: Promise<unknown>[] = [];
    // A run of two records succeeds; any other fails.
    const startRun: StartRun = (run) => {
      const end =
        run.records.length === 2 ? Promise.resolve({ records: 2 }) : Promise.reject(new Error('the provider said no'));
      started.push(end.catch(() => undefined));
      return end;
    };
    const { receiver, urls } = await startReceiver({
      stateDir: await stateFolder(),
      clock,
      config: { triggers: [trigger(RUNS)] },
      startRun,
      metricsPort: 0,
    });
    const url = urls.trg_orders!;
    expect((await deliver(url, clock, ORDERS, 'evt_1')).body).toMatchObject({ accepted: true });
    expect((await deliver(url, clock, ORDERS, 'evt_1')).body).toMatchObject({ duplicate: true });
    expect((await deliver(url, clock, { type: 'order.paid', id: 'o3' }, 'evt_2')).body).toMatchObject({
      accepted: true,
    });
    const text = JSON.stringify(ORDERS);
    const forged = signed(text, { secret: 'whsec_not_the_trigger_secret_at_all', timestamp: secondsOf(clock) });
    expect((await post(url, text, forged)).status).toBe(401);
    expect((await post(url.replace('pub_orders', 'pub_nobody'), text, forged)).status).toBe(404);
    await Promise.all(started);
    await new Promise((resolve) => setImmediate(resolve));
    expect(receiver.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(await scrape(receiver.metricsUrl!)).toEqual([
      'plugboard_trigger_deliveries_total{trigger="trg_orders",outcome="accepted"} 2',
      'plugboard_trigger_deliveries_total{trigger="trg_orders",outcome="duplicate"} 1',
      'plugboard_trigger_deliveries_total{trigger="trg_orders",outcome="signature_mismatch"} 1',
      'plugboard_trigger_deliveries_total{trigger="",outcome="unknown_trigger"} 1',
      'plugboard_trigger_runs_total{trigger="trg_orders",end="succeeded"} 1',
      'plugboard_trigger_runs_total{trigger="trg_orders",end="failed"} 1',
    ]);
    // A sender that leaves halfway through its body spent the rate: counted, though nothing is answered.
    const { port, pathname } = new URL(url);
    const leaving = connect(Number(port), '127.0.0.1');
    leaving.on('error', () => undefined);
    // It asks first: once invited, the receiver is reading its body.
    const invited = new Promise((resolve) => leaving.once('data', resolve));
    leaving.write(
      `POST ${pathname} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1000\r\nexpect: 100-continue\r\n\r\n`,
    );
    expect(String(await invited)).toMatch(/^HTTP\/1\.1 100 Continue/);
    leaving.end('{"records":');
    leaving.destroy();
    await vi.waitFor(async () =>
      expect(await scrape(receiver.metricsUrl!)).toContain(
        'plugboard_trigger_deliveries_total{trigger="trg_orders",outcome="abandoned"} 1',
      ),
    );
    // Not where senders post: there, a GET of /metrics is no delivery.
    expect((await fetch(`${receiver.url}/metrics`)).status).toBe(405);
    const metricsUrl = receiver.metricsUrl!;
    await receiver.close();
    await expect(fetch(metricsUrl)).rejects.toThrow();
  });

  it('count each poll the receiver read by how it ended', async () => {
    const clock = testClock();
    const startPoll: StartPoll = async () => ({ records: 3 });
    const { receiver } = await startReceiver({
      stateDir: await stateFolder(),
      clock,
      config: { polls: [pollTrigger('http://127.0.0.1:9')] },
      startPoll,
      metricsPort: 0,
    });
    // A poll never polled before falls due when the receiver listens.
    await clock.advance(0);
    await receiver.pollsSettled();
    expect(await scrape(receiver.metricsUrl!)).toEqual([
      'plugboard_trigger_polls_total{poll="poll_items",end="succeeded"} 1',
    ]);
  });

  it('refuses a metricsPort that is no port, naming it, before anything is opened', () => {
    for (const metricsPort of [-1, 65_536, 1.5])
      expect(() =>
        createReceiver({ config: { triggers: [trigger()] }, stateDir: '/nonexistent', env: ENV, metricsPort }),
      ).toThrow(expect.objectContaining({ issues: [expect.objectContaining({ path: 'metricsPort' })] }));
    expect(() =>
      createReceiver({ config: { triggers: [trigger()] }, stateDir: '/nonexistent', env: ENV, metricsPort: -1 }),
    ).toThrow(InvalidInputError);
  });
});
