import { describe, expect, it } from 'vitest';
import { manualClock, sleep } from '../src/clock.js';

describe('manualClock', () => {
  it('runs timers in the order they fall due, only when advanced', async () => {
    const clock = manualClock(1_000);
    const ran: string[] = [];
    clock.setTimer(() => ran.push(`b@${clock.now()}`), 200);
    clock.setTimer(() => ran.push(`a@${clock.now()}`), 100);
    const cancelled = clock.setTimer(() => ran.push('never'), 150);
    cancelled.cancel();
    expect(ran).toEqual([]);
    await clock.advance(150);
    expect(ran).toEqual(['a@1100']);
    expect(clock.now()).toBe(1_150);
    await clock.advance(1_000);
    expect(ran).toEqual(['a@1100', 'b@1200']);
    expect(clock.now()).toBe(2_150);
    expect(clock.pending).toBe(0);
  });

  it('runs a timer set by a timer that fell due within the same advance', async () => {
    const clock = manualClock(0);
    const woke: number[] = [];
    const waiter = (async () => {
      await sleep(clock, 100);
      woke.push(clock.now());
      await sleep(clock, 100);
      woke.push(clock.now());
    })();
    await clock.advance(250);
    await waiter;
    expect(woke).toEqual([100, 200]);
  });

  it('a sleep ends with the signal reason when aborted, and its timer is gone', async () => {
    const clock = manualClock(0);
    const abort = new AbortController();
    const slept = sleep(clock, 10_000, abort.signal);
    abort.abort(new Error('stop'));
    await expect(slept).rejects.toThrow('stop');
    expect(clock.pending).toBe(0);
    expect(await clock.next()).toBe(false);
  });
});
