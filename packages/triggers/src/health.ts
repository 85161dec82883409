import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConnectorError } from '@plugboard/sdk';
import type { Clock, Timer } from '@plugboard/sdk/host';
import { sendJson, UNAVAILABLE_RETRY_AFTER_SECONDS } from './answer.js';

/**
 * `GET /health` (and `HEAD`): whether the receiver takes deliveries now, for a balancer's or an
 * orchestrator's probe. In the embedded mode it does whenever it listens. In queued mode it does
 * when the fleet's PostgreSQL answers (its claims and receipts go there; a Redis that is away only
 * delays runs, which stay pending): checked at most once a second of the receiver's clock and
 * never twice at once, however often it is probed, every probe meanwhile given the last answer
 * (or waiting for the check under way), so a flood of probes costs the database nothing. A check
 * that has not answered within a second of the receiver's clock (a database that holds its
 * connections and stops answering) is answered `timeout`, to the probes that wait and to those
 * that follow, until it ends: a probe is never held longer than a balancer waits. A probe leaves
 * no receipt and counts against no trigger's rate.
 */

const HEALTH_PATH = '/health';

/** How long one check of the database answers the probes that follow it. */
const CHECKED_FOR_MS = 1_000;

/** How long a probe waits on a check: within the second an orchestrator's probe is given by default. */
const CHECK_TIMEOUT_MS = 1_000;

const RETRY_LATER = { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) };

/** Resolves when the receiver's state can take a delivery now; else throws, typed (`DatabaseUnavailableError`). */
export type Probe = () => Promise<void>;

type Outcome = { ok: true } | { ok: false; code: string };

export interface HealthCheck {
  answer(request: IncomingMessage, response: ServerResponse): Promise<void>;
}

export const isHealthPath = (url: string | undefined) => (url ?? '').split('?', 1)[0] === HEALTH_PATH;

function outcomeOf(probe: Probe): Promise<Outcome> {
  return probe().then(
    (): Outcome => ({ ok: true }),
    (error: unknown): Outcome => ({ ok: false, code: error instanceof ConnectorError ? error.code : 'unavailable' }),
  );
}

/** The check's outcome, or `timeout` once it has gone unanswered for CHECK_TIMEOUT_MS of the clock. */
function bounded(outcome: Promise<Outcome>, clock: Clock): Promise<Outcome> {
  let timer: Timer | undefined;
  const timedOut = new Promise<Outcome>((resolve) => {
    timer = clock.setTimer(() => resolve({ ok: false, code: 'timeout' }), CHECK_TIMEOUT_MS);
  });
  void outcome.then(() => timer?.cancel());
  return Promise.race([outcome, timedOut]);
}

export function healthCheck(probe: Probe | undefined, clock: Clock): HealthCheck {
  let last: { at: number; outcome: Promise<Outcome>; settled: boolean } | undefined;
  const current = (): Promise<Outcome> => {
    if (!probe) return Promise.resolve({ ok: true });
    const now = clock.now();
    // One check at a time: a database that never answers holds one query, not one a second.
    if (last === undefined || (last.settled && now - last.at >= CHECKED_FOR_MS)) {
      const outcome = outcomeOf(probe);
      const check = { at: now, outcome: bounded(outcome, clock), settled: false };
      void outcome.then(() => {
        check.settled = true;
      });
      last = check;
    }
    return last.outcome;
  };
  return {
    async answer(request, response) {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return sendJson(request, response, 405, { code: 'method_not_allowed' }, { allow: 'GET, HEAD' });
      const outcome = await current();
      if (outcome.ok) return sendJson(request, response, 200, { status: 'ok' });
      sendJson(request, response, 503, { status: 'unavailable', code: outcome.code }, RETRY_LATER);
    },
  };
}
