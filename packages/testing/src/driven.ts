import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ManualClock } from '@plugboard/sdk/host';

/**
 * Runs work whose transport waits on `clock`, moving that clock from timer to timer: a rate
 * budget's windows, Retry-After pauses and retry backoff pass at once, in the order and at the
 * times the transport's rules decide. Time moves only while no exchange is on its way (the
 * SDK's documented `plugboard:http:exchange:*` channels say which are), so an answer always
 * comes in at the time it was asked for.
 */

export interface DrivenRun<T> {
  value: T;
  /** How far the clock moved while the work ran: the waits the rules asked for. */
  drivenMs: number;
  /** How many requests waited for their rate budget. */
  budgetWaits: number;
}

const EXCHANGE_START = 'plugboard:http:exchange:start';
const EXCHANGE_END = 'plugboard:http:exchange:end';
const BUDGET_WAIT = 'plugboard:http:budget:wait';

export async function driveClock<T>(clock: ManualClock, work: () => Promise<T>): Promise<DrivenRun<T>> {
  let exchanges = 0;
  let budgetWaits = 0;
  const started = () => void (exchanges += 1);
  const ended = () => void (exchanges -= 1);
  const waited = () => void (budgetWaits += 1);
  subscribe(EXCHANGE_START, started);
  subscribe(EXCHANGE_END, ended);
  subscribe(BUDGET_WAIT, waited);
  const start = clock.now();
  try {
    const value = await clock.runUntil(work(), () => exchanges === 0);
    return { value, drivenMs: clock.now() - start, budgetWaits };
  } finally {
    unsubscribe(EXCHANGE_START, started);
    unsubscribe(EXCHANGE_END, ended);
    unsubscribe(BUDGET_WAIT, waited);
  }
}
