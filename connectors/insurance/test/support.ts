import { createTransport, type RunOptions, type Transport } from '@plugboard/sdk';
import {
  startInsuranceSimulator,
  type InsuranceSimulator,
  type InsuranceSimulatorOptions,
} from '@plugboard/simulator-insurance';
import { afterEach } from 'vitest';

export const REQUEST_ID = /^req_[0-9a-f]+$/;

/** A quick retry schedule for tests; the policy (safe or never) stays the action's. */
export const FAST_RETRY = { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 };

/** Applicant born 1988-04-12 asking for seven days of illness cover: the contract's example. */
export const QUOTE_REQUEST = {
  applicant: { date_of_birth: '1988-04-12' },
  cause: 'illness',
  confinement_days: 7,
} as const;

export interface Harness {
  sim: InsuranceSimulator;
  transport: Transport;
  /** Run options against this simulator: bearer auth with its key, a fresh transport, quick retries. */
  options(input: unknown, extra?: Partial<RunOptions>): RunOptions;
}

/** Starts a simulator on 127.0.0.1 (port 0) and a transport per test, and closes both after it. */
export function useHarness(): (simulator?: InsuranceSimulatorOptions) => Promise<Harness> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });
  return async (simulator = {}) => {
    const sim = await startInsuranceSimulator(simulator);
    // Production runs go to this simulator on 127.0.0.1: the host lets loopback through.
    const transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
    cleanups.push(
      () => transport.close(),
      () => sim.close(),
    );
    return {
      sim,
      transport,
      options: (input, extra = {}) => ({
        input,
        connection: { baseUrl: sim.url },
        credential: () => sim.apiKey,
        transport,
        retry: FAST_RETRY,
        log: () => undefined,
        ...extra,
      }),
    };
  };
}
