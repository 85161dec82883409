import type { Harness } from './harness.js';
import { json } from './server.js';

/**
 * A strict sliding-window provider that counts what the budget tests assert: each request is
 * counted at its arrival, and refused (429 with `Retry-After`, whole seconds until the window
 * has room) when `limit` were admitted in the period up to it; it also counts how many
 * requests it holds at once (each answer waits `answerMs`, so that requests sent side by side
 * meet) up to its first refusal. `retryAfterSeconds`: the least `Retry-After` it asks for, as
 * providers that ask for longer than their window does. `tighten(limit)` lowers the limit.
 */
export interface StrictWindow {
  url: string;
  /** Paths of the requests refused, in order. */
  readonly refusedPaths: string[];
  /** Requests admitted. */
  readonly admitted: number;
  /** The most requests held at once up to (and with) the first refusal. */
  readonly peakBeforeRefusal: number;
  /** Lowers the limit from the next request on. */
  tighten(limit: number): void;
}

export async function startStrictWindow(
  h: Harness,
  options: { limit: number; periodMs: number; answerMs: number; retryAfterSeconds?: number },
): Promise<StrictWindow> {
  let limit = options.limit;
  const { periodMs, answerMs } = options;
  const admittedAt: number[] = [];
  const refusedPaths: string[] = [];
  let inFlight = 0;
  let peakBeforeRefusal = 0;
  const answer = (send: () => void) => {
    setTimeout(() => {
      inFlight -= 1;
      send();
    }, answerMs);
  };
  const server = await h.start((req, res) => {
    const at = performance.timeOrigin + performance.now();
    inFlight += 1;
    if (refusedPaths.length === 0) peakBeforeRefusal = Math.max(peakBeforeRefusal, inFlight);
    const inWindow = admittedAt.filter((time) => time > at - periodMs);
    if (inWindow.length >= limit) {
      refusedPaths.push(req.path);
      const frees = Math.ceil((inWindow[inWindow.length - limit]! + periodMs - at) / 1000);
      const retryAfter = Math.max(1, options.retryAfterSeconds ?? 0, frees);
      return answer(() => json(res, 429, { error: 'rate_limit_exceeded' }, { 'retry-after': String(retryAfter) }));
    }
    admittedAt.push(at);
    const id = req.path.split('/').pop()!;
    answer(() => json(res, 200, { id, name: `Item ${id}`, updated_at: '2026-11-01T00:00:00Z' }));
  });
  return {
    url: server.url,
    refusedPaths,
    get admitted() {
      return admittedAt.length;
    },
    get peakBeforeRefusal() {
      return peakBeforeRefusal;
    },
    tighten(next) {
      limit = next;
    },
  };
}
