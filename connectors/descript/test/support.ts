import { type Connector, createTransport, type LogEntry, type RunOptions, type Transport } from '@plugboard/sdk';
import { prepareRun } from '@plugboard/sdk/host';
import {
  openApiReference,
  startDescriptSimulator,
  type DescriptSimulator,
  type DescriptSimulatorOptions,
} from '@plugboard/simulator-descript';
import { afterEach, expect, it } from 'vitest';
import { createDescriptConnector } from '../src/index.js';

/**
 * The provider's OpenAPI document, beside the checkout where CI has it. Where it is present the
 * simulator checks every request against it, so a connector bug shows up as a 400.
 */
const reference = openApiReference();
export const OPENAPI_PATH = reference.path;
export const HAS_OPENAPI = reference.present;
if (!reference.present)
  console.warn(`${reference.missing}; the simulator does not check this file's requests against it`);

/**
 * A test that needs the document: run where it is present, failed on CI without it (CI always
 * has it), and elsewhere skipped under a title that says which file is missing and where it was
 * looked for.
 */
export function itWithOpenApi(name: string, test: () => unknown): void {
  if (reference.present) it(name, test);
  else if (reference.required) it(name, () => expect.fail(reference.missing));
  else it.skip(`${name} [skipped: ${reference.missing}]`, test);
}

/** The fixed instant recordings and clock-dependent tests run at: 2026-03-02T12:00:00Z. */
export const T0 = Date.UTC(2026, 2, 2, 12, 0, 0);
export const SEED = 7;
export const SIZE = 30;

/** The connector with its clock fixed at T0, as the fixtures were recorded. */
export const fixedClockDescript: Connector = createDescriptConnector({ clock: () => T0 });

/** A quick retry schedule for tests; the policy (safe or never) stays the action's. */
export const FAST_RETRY = { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20 };

export interface Clock {
  now: number;
  advance(ms: number): void;
}

export interface Harness {
  sim: DescriptSimulator;
  transport: Transport;
  clock: Clock;
  logs: LogEntry[];
  progress: Array<{ label?: string | undefined; percent?: number | undefined }>;
  connector: Connector;
  /** Run options against this simulator: its token, a fresh transport, quick retries, logs and progress captured. */
  options(input: unknown, extra?: Partial<RunOptions>): RunOptions;
  /** The same, in production with the approval digest of exactly this run. */
  approved(action: string, input: unknown, extra?: Partial<RunOptions>): RunOptions;
  /** Requests the simulator received to this path (after /v1), e.g. `/jobs/agent`. */
  requestsTo(path: string | RegExp): DescriptSimulator['requests'];
}

/** Starts a simulator on 127.0.0.1 (port 0), with the OpenAPI document when present, and closes it after the test. */
export function useHarness(): (simulator?: DescriptSimulatorOptions) => Promise<Harness> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });
  return async (simulator = {}) => {
    const clock: Clock = {
      now: T0,
      advance(ms) {
        this.now += ms;
      },
    };
    const sim = await startDescriptSimulator({
      port: 0,
      seed: SEED,
      size: SIZE,
      clock: () => clock.now,
      ...(HAS_OPENAPI ? { openapiPath: OPENAPI_PATH } : {}),
      ...simulator,
    });
    // Production runs go to this simulator on 127.0.0.1: the host lets loopback through.
    const transport = createTransport({ network: { allow: ['127.0.0.0/8'] } });
    cleanups.push(
      () => transport.close(),
      () => sim.close(),
    );
    const logs: LogEntry[] = [];
    const progress: Harness['progress'] = [];
    const connector = createDescriptConnector({ clock: () => clock.now });
    const options = (input: unknown, extra: Partial<RunOptions> = {}): RunOptions => ({
      input,
      connection: { baseUrl: sim.url },
      credential: () => sim.token,
      transport,
      retry: FAST_RETRY,
      log: (entry) => logs.push(entry),
      onProgress: (event) => progress.push({ label: event.label, percent: event.percent }),
      ...extra,
    });
    return {
      sim,
      transport,
      clock,
      logs,
      progress,
      connector,
      options,
      approved: (action, input, extra = {}) => {
        const run = options(input, { environment: 'production', ...extra });
        const { digest } = prepareRun(connector, action, run).binding;
        return {
          ...run,
          approval: {
            digest,
            requestedBy: 'test-requester',
            decidedBy: 'test-approver',
            decision: 'approved',
            expiresAt: null,
          },
        };
      },
      requestsTo: (path) =>
        sim.requests.filter((request) => (typeof path === 'string' ? request.path === path : path.test(request.path))),
    };
  };
}

/** The error a promise rejects with (fails the test when it resolves). */
export async function failure(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Error & Record<string, unknown>;
  }
  throw new Error('expected a failure, but the call succeeded');
}

/** Project ids of the simulator's drives, by ordinal. */
export function projectId(sim: DescriptSimulator, ordinal: number, driveId?: string): string {
  const project = sim.state.project(ordinal, driveId);
  if (!project) throw new Error(`no project ${ordinal}`);
  return String(project['id']);
}

/** The newest seeded project that has at least one share page. */
export function projectWithPublishes(sim: DescriptSimulator): string {
  for (let ordinal = sim.state.projectCount() - 1; ordinal >= 0; ordinal--) {
    const project = sim.state.project(ordinal);
    if (Array.isArray(project?.['publishes']) && project['publishes'].length > 0) return String(project['id']);
  }
  throw new Error('no project with share pages');
}
