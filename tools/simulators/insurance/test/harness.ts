import { afterEach } from 'vitest';
import { startInsuranceSimulator, type InsuranceSimulator, type InsuranceSimulatorOptions } from '../src/index.js';

/** The simulator clock of most tests: the moment of the contract's example answer. */
export const NOW = Date.UTC(2026, 10, 21, 10, 4, 11);

export const REQUEST_ID = /^req_[0-9a-f]+$/;

/** Starts simulators on 127.0.0.1 (port 0) with a fixed clock, and closes them after each test. */
export function useSimulators(): (options?: InsuranceSimulatorOptions) => Promise<InsuranceSimulator> {
  const running: InsuranceSimulator[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((sim) => sim.close()));
  });
  return async (options = {}) => {
    const sim = await startInsuranceSimulator({ clock: () => NOW, ...options });
    running.push(sim);
    return sim;
  };
}

export interface CallOptions {
  body?: unknown;
  /** A raw body sent as is, e.g. malformed JSON. */
  rawBody?: string;
  /** How the key is sent (default bearer). */
  auth?: 'bearer' | 'x-api-key' | 'none';
  key?: string;
  headers?: Record<string, string>;
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON; undefined when it is not JSON. */
  json: any;
}

export async function call(
  sim: InsuranceSimulator,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key ?? sim.apiKey;
  const auth = options.auth ?? 'bearer';
  if (auth === 'bearer') headers.authorization = `Bearer ${key}`;
  if (auth === 'x-api-key') headers['x-api-key'] = key;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] = 'application/json';
  }
  const response = await fetch(`${sim.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export const quoteRequest = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  applicant: { date_of_birth: '1988-04-12' },
  cause: 'illness',
  confinement_days: 7,
  ...overrides,
});
