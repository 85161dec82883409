import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { startWindowServer, type WindowServer, type WindowServerOptions } from '../src/index.js';

/**
 * The sliding-window provider, spoken to with plain fetch. Most tests drive its
 * clock by hand, so they assert counts at exact instants; none asserts how long
 * anything took.
 */

const servers: WindowServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(options: WindowServerOptions): Promise<WindowServer> {
  const server = await startWindowServer(options);
  servers.push(server);
  return server;
}

/** A clock the test moves. */
function manualClock(start = 1_000_000) {
  let time = start;
  return {
    now: () => time,
    set: (value: number) => void (time = value),
  };
}

async function get(server: WindowServer, path = '/items/a') {
  const response = await fetch(`${server.url}${path}`);
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as Record<string, unknown>,
  };
}

describe('startWindowServer', () => {
  it('publishes the places left with `remainingHeader`, and Retry-After on the answer that took the last', async () => {
    const clock = manualClock();
    const server = await start({ limit: 3, periodMs: 2_500, remainingHeader: true, now: clock.now });
    const seen = [];
    for (let index = 0; index < 3; index += 1) {
      const response = await fetch(`${server.url}/items/a`);
      await response.body?.cancel();
      seen.push([response.headers.get('x-ratelimit-remaining'), response.headers.get('retry-after')]);
      clock.set(1_000_000 + (index + 1) * 100);
    }
    // The last place taken at +200 ms: the window has room at +2,500, 2.3 s later, 3 in whole seconds.
    expect(seen).toEqual([
      ['2', null],
      ['1', null],
      ['0', '3'],
    ]);
    // Without the option no answer carries it.
    const plain = await start({ limit: 3, periodMs: 2_500 });
    const response = await fetch(`${plain.url}/items/a`);
    await response.body?.cancel();
    expect(response.headers.get('x-ratelimit-remaining')).toBeNull();
  });

  it('admits `limit` requests in a window, answers the next with 429 and Retry-After, and admits again once the window has room', async () => {
    const clock = manualClock();
    const server = await start({ limit: 3, periodMs: 200, now: clock.now });
    for (let index = 0; index < 3; index += 1) {
      const answer = await get(server, `/items/i${index}`);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ id: `i${index}`, name: `Item i${index}`, updated_at: '2026-11-01T00:00:00Z' });
    }
    const refused = await get(server);
    expect(refused.status).toBe(429);
    // 200 ms until the window has room, in whole seconds rounded up.
    expect(refused.retryAfter).toBe('1');
    expect(refused.body).toMatchObject({ error: 'rate_limited', retry_after_seconds: 1 });
    expect([server.admitted, server.rejected]).toEqual([3, 1]);

    // 199 ms later the first arrival is still inside the window.
    clock.set(1_000_199);
    expect((await get(server)).status).toBe(429);
    // Exactly one period later it has left: (t - periodMs, t] excludes it.
    clock.set(1_000_200);
    const results = [];
    for (let index = 0; index < 4; index += 1) results.push((await get(server)).status);
    expect(results).toEqual([200, 200, 200, 429]);
    expect([server.admitted, server.rejected]).toEqual([6, 3]);
    expect(server.peakInWindow).toBe(3);
    expect(server.arrivals).toHaveLength(9);
  });

  it('does not count a refused request: refusals do not push the window on', async () => {
    const clock = manualClock(0);
    const server = await start({ limit: 2, periodMs: 1000, now: clock.now });
    await get(server);
    clock.set(500);
    await get(server);
    clock.set(900);
    expect((await get(server)).status).toBe(429);
    expect((await get(server)).retryAfter).toBe('1');
    // The first admitted arrival (at 0) leaves at 1000; the refusals at 900 do not hold the window.
    clock.set(1000);
    expect((await get(server)).status).toBe(200);
    expect((await get(server)).status).toBe(429);
    clock.set(1500);
    expect((await get(server)).status).toBe(200);
    expect([server.admitted, server.rejected, server.peakInWindow]).toEqual([4, 3, 2]);
  });

  it('keeps the peak of admitted arrivals in any window', async () => {
    const clock = manualClock(0);
    const server = await start({ limit: 5, periodMs: 100, now: clock.now });
    for (const at of [0, 10, 150, 160, 170, 180, 300]) {
      clock.set(at);
      expect((await get(server)).status).toBe(200);
    }
    expect(server.peakInWindow).toBe(4);
    expect(server.arrivals).toEqual([0, 10, 150, 160, 170, 180, 300]);
  });

  it('answers the Retry-After it is given', async () => {
    const clock = manualClock(0);
    const server = await start({ limit: 1, periodMs: 60_000, retryAfterSeconds: 7, now: clock.now });
    await get(server);
    clock.set(59_000);
    const refused = await get(server);
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).toBe('7');
  });

  it('rounds the default Retry-After up to whole seconds of the time until the window has room', async () => {
    const clock = manualClock(0);
    const server = await start({ limit: 1, periodMs: 60_000, now: clock.now });
    await get(server);
    clock.set(1_500);
    expect((await get(server)).retryAfter).toBe('59');
    clock.set(58_999);
    expect((await get(server)).retryAfter).toBe('2');
  });

  it('delays answers, counting each request at its arrival', async () => {
    const clock = manualClock(0);
    const asked: number[] = [];
    const server = await start({
      limit: 2,
      periodMs: 1000,
      now: clock.now,
      delayMs: (index) => {
        asked.push(index);
        return index === 0 ? 50 : 0;
      },
    });
    const first = get(server);
    // The first answer is held back; the request is already counted.
    while (server.arrivals.length === 0) await sleep(5);
    expect(server.admitted).toBe(1);
    const statuses = [(await get(server)).status, (await get(server)).status, (await first).status];
    expect(statuses).toEqual([200, 429, 200]);
    expect(asked).toEqual([0, 1, 2]);
  });

  it('delays the first window of answers with delayFirstMs, and still answers them', async () => {
    const server = await start({ limit: 2, periodMs: 60_000, delayFirstMs: 20 });
    const statuses = await Promise.all([get(server), get(server), get(server)]).then((answers) =>
      answers.map((answer) => answer.status).sort(),
    );
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('admits again after a real period has passed', async () => {
    const server = await start({ limit: 3, periodMs: 1000 });
    const first = await Promise.all([get(server), get(server), get(server), get(server)]);
    expect(first.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 429]);
    await sleep(1100);
    expect((await get(server)).status).toBe(200);
    expect([server.admitted, server.rejected, server.peakInWindow]).toEqual([4, 1, 3]);
  });

  it('forgets everything on reset()', async () => {
    const clock = manualClock(0);
    const server = await start({ limit: 1, periodMs: 1000, now: clock.now });
    await get(server);
    await get(server);
    server.reset();
    expect([server.admitted, server.rejected, server.peakInWindow, server.arrivals.length]).toEqual([0, 0, 0, 0]);
    expect((await get(server)).status).toBe(200);
  });

  it('answers 405 to anything but GET, without counting it', async () => {
    const server = await start({ limit: 1, periodMs: 1000 });
    const response = await fetch(`${server.url}/items`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(405);
    await response.body?.cancel();
    expect(server.arrivals).toHaveLength(0);
    expect((await get(server)).status).toBe(200);
  });

  it('refuses a limit or period that cannot work', async () => {
    await expect(startWindowServer({ limit: 0, periodMs: 1000 })).rejects.toThrow(/limit/);
    await expect(startWindowServer({ limit: 1, periodMs: 0 })).rejects.toThrow(/periodMs/);
  });

  it('admits a steady `limit` per period for ever, past the deque growing and wrapping', async () => {
    const clock = manualClock(0);
    const server = await start({ limit: 10, periodMs: 100, now: clock.now });
    // 300 requests over 3000 ms, one every 10 ms: exactly 10 in every window, never an 11th.
    for (let index = 0; index < 300; index += 1) {
      clock.set(index * 10);
      expect((await get(server, `/items/${index}`)).status).toBe(200);
    }
    expect([server.admitted, server.rejected, server.peakInWindow]).toEqual([300, 0, 10]);
  });
});
