import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bearerToken, defineAction, defineConnector } from '@plugboard/sdk';
import { manualClock } from '@plugboard/sdk/host';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { replayScenario } from '../src/index.js';
import { FIXTURE_FORMAT, type Fixture, type RecordedCall, serializeFixture } from '../src/fixture.js';

/**
 * Replay runs the transport on a clock it drives: a rate budget's windows pass at once, yet a
 * recording that needs more requests than a window allows still waits its windows, in driven time.
 */

const Item = z.object({ id: z.string() }).meta({ id: 'MeteredItem' });

/** Seven pages at 2 requests a second: the budget holds the run at least three windows. */
const PAGES = 7;

function metered(pages: number) {
  return defineConnector({
    key: 'metered',
    name: 'Metered',
    version: '1.0.0',
    vendor: 'Plugboard',
    category: 'developer',
    status: 'alpha',
    summary: 'A paged source on a tight declared budget.',
    auth: bearerToken(),
    baseUrl: 'http://127.0.0.1:9',
    rateLimits: { default: { limit: 2, per: 'second' } },
    actions: [
      defineAction({
        key: 'items.list',
        label: 'List items',
        direction: 'source',
        entity: Item,
        input: z.object({}),
        async *read(ctx) {
          for (let page = 1; page <= pages; page += 1) yield { records: [await ctx.http.get(`/items/${page}`)] };
        },
      }),
    ],
  });
}

function call(page: number): RecordedCall {
  return {
    request: { method: 'GET', path: `/v1/items/${page}`, headers: {} },
    response: {
      status: 200,
      headers: { 'content-type': 'application/json' },
      body: { id: `item_${page}` },
      bodyType: 'json',
    },
  };
}

const fixture: Fixture = {
  format: FIXTURE_FORMAT,
  connector: { key: 'metered', version: '1.0.0' },
  scenario: { name: 'items', action: 'items.list', input: {} },
  basePath: '/v1',
  calls: Array.from({ length: PAGES }, (_, index) => call(index + 1)),
  outcome: { pages: PAGES, records: Array.from({ length: PAGES }, (_, index) => ({ id: `item_${index + 1}` })) },
};

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'plugboard-replay-clock-'));
  await writeFile(join(dir, 'items.json'), serializeFixture(fixture));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('replay on a driven clock', () => {
  it('waits the budget’s windows on the clock it is given, which moves only as the budget asks', async () => {
    const clock = manualClock();
    const start = clock.now();
    const result = await replayScenario({ connector: metered(PAGES), scenario: 'items', fixturesDir: dir, clock });
    expect(result.records).toHaveLength(PAGES);
    // Pages 1-2 in the first window, 3-4 in the second, 5-6 in the third, 7 in the fourth.
    expect(clock.now() - start).toBeGreaterThanOrEqual(3_000);
    expect(clock.now() - start).toBeLessThan(5_000);
    expect(result.drivenMs).toBe(clock.now() - start);
  });

  it('drives a clock of its own by default, and says how far it moved it', async () => {
    const result = await replayScenario({ connector: metered(PAGES), scenario: 'items', fixturesDir: dir });
    expect(result.records).toHaveLength(PAGES);
    expect(result.drivenMs).toBeGreaterThanOrEqual(3_000);
    // Pages 3, 5 and 7 each wait for a window; 4 and 6 find room beside the page before them.
    expect(result.budgetWaits).toBe(3);
  });

  it('waits nothing when the recording fits the window', async () => {
    const short: Fixture = {
      ...fixture,
      scenario: { name: 'short', action: 'items.list', input: {} },
      calls: fixture.calls.slice(0, 2),
      outcome: { pages: 2, records: [{ id: 'item_1' }, { id: 'item_2' }] },
    };
    await writeFile(join(dir, 'short.json'), serializeFixture(short));
    const result = await replayScenario({ connector: metered(2), scenario: 'short', fixturesDir: dir });
    expect({ drivenMs: result.drivenMs, budgetWaits: result.budgetWaits }).toEqual({ drivenMs: 0, budgetWaits: 0 });
  });
});
