import {
  type Connector,
  ConnectorError,
  prepareRun,
  type RetrySettings,
  type RunOptions,
  runAction,
  type Transport,
} from '@plugboard/sdk';
import type { OutcomeError, RecordedOutcome } from './fixture.js';
import type { Scenario } from './scenario.js';

/** Running one scenario through the SDK, the way the runtime runs it, collecting every page. */

export interface ScenarioRun {
  baseUrl: string;
  credential: string;
  transport: Transport;
  signal?: AbortSignal;
  /** Overrides the scenario's checkpoint (the second run of an incremental pair). */
  checkpoint?: unknown;
  retry?: Partial<RetrySettings>;
  secrets?: readonly string[];
}

export interface RunResult {
  records: unknown[];
  pages: number;
  checkpoint: unknown;
  /** The run's failure, when it failed with a connector error. */
  error: ConnectorError | undefined;
}

/** The SDK's run options for a scenario; an approved scenario carries the digest of exactly this run. */
export function runOptions(connector: Connector, scenario: Scenario, run: ScenarioRun): RunOptions {
  const checkpoint = run.checkpoint !== undefined ? run.checkpoint : scenario.checkpoint;
  const connection = { ...scenario.connection, baseUrl: run.baseUrl };
  const options: RunOptions = {
    input: scenario.input ?? {},
    connection,
    credential: () => run.credential,
    environment: scenario.environment ?? 'sandbox',
    transport: run.transport,
    log: () => undefined,
    ...(checkpoint !== undefined ? { checkpoint } : {}),
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.retry ? { retry: run.retry } : {}),
    ...(run.secrets ? { secrets: run.secrets } : {}),
  };
  if (scenario.approved) {
    options.approvedDigest = prepareRun(connector, scenario.action, options).binding.digest;
  }
  return options;
}

/** Runs to the end. A `ConnectorError` is the run's outcome; anything else is thrown. */
export async function runScenario(connector: Connector, scenario: Scenario, run: ScenarioRun): Promise<RunResult> {
  const records: unknown[] = [];
  let pages = 0;
  let checkpoint: unknown = run.checkpoint !== undefined ? run.checkpoint : scenario.checkpoint;
  try {
    for await (const page of runAction(connector, scenario.action, runOptions(connector, scenario, run))) {
      records.push(...page.records);
      if (page.checkpoint !== undefined) checkpoint = page.checkpoint;
      pages += 1;
    }
    return { records, pages, checkpoint, error: undefined };
  } catch (error) {
    if (error instanceof ConnectorError) return { records, pages, checkpoint, error };
    throw error;
  }
}

export function outcomeErrorOf(error: ConnectorError): OutcomeError {
  return {
    code: error.code,
    name: error.name,
    message: error.message,
    ...(error.status !== undefined ? { status: error.status } : {}),
  };
}

export function outcomeOf(result: RunResult): RecordedOutcome {
  if (result.error) return { error: outcomeErrorOf(result.error) };
  return { pages: result.pages, records: result.records, ...(result.checkpoint !== undefined ? { checkpoint: result.checkpoint } : {}) };
}
