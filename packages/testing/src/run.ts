import {
  type ApprovalDecision,
  type ConnectionCredential,
  type Connector,
  ConnectorError,
  type Transport,
  type RetrySettings,
} from '@plugboard/sdk';
import {
  checkpointDeclaration,
  checkpointToStore,
  createExecutor,
  memoryStore,
  type PagingEnd,
} from '@plugboard/sdk/host';
import type { OutcomeError, RecordedOutcome } from './fixture.js';
import type { Scenario } from './scenario.js';

/**
 * Running one scenario the way the platform runs it: through the SDK's one
 * executor (validation once, the one approval gate, checkpoints), collecting
 * every page.
 */

export interface ScenarioRun {
  baseUrl: string;
  credential: ConnectionCredential;
  transport: Transport;
  signal?: AbortSignal;
  /** Overrides the scenario's checkpoint (the second run of an incremental pair). */
  checkpoint?: unknown;
  retry?: Partial<RetrySettings>;
  secrets?: readonly string[];
  /**
   * The connection's stand-in authorization server (a host's `authBaseUrl`, sandbox only), where
   * its OAuth2 token requests go; the host's, never part of the scenario or its fixture.
   */
  authBaseUrl?: string;
}

export interface RunResult {
  records: unknown[];
  pages: number;
  checkpoint: unknown;
  /** The run's failure, when it failed with a connector error. */
  error: ConnectorError | undefined;
  /** Why each paged read of the run ended, in order, as the SDK logged it (`pagingEnded`); none without declared paging. */
  pagingEnds: PagingEndEntry[];
}

/** One paged read's end: why, and the page it ended on (or, at `maxPages` and `maxMs`, before). */
export interface PagingEndEntry {
  /** Why: the paginator's last page, the checkpoint (newest first), or a limit. */
  ended: PagingEnd;
  /** The page it ended on, or (at `maxPages` and `maxMs`) the page it did not ask for. */
  page: number;
}

/** Who asks for the approval of an approved scenario; its approver (`approvedBy`) decides. */
export const SCENARIO_REQUESTER = 'plugboard-testing-kit';

/** The scenario's stream in the executor's checkpoint store, where its starting checkpoint is put. */
const STREAM = 'scenario';

/** Runs to the end. A `ConnectorError` is the run's outcome; anything else is thrown. */
export async function runScenario(connector: Connector, scenario: Scenario, run: ScenarioRun): Promise<RunResult> {
  const records: unknown[] = [];
  const pagingEnds: PagingEndEntry[] = [];
  let pages = 0;
  let checkpoint: unknown = run.checkpoint !== undefined ? run.checkpoint : scenario.checkpoint;
  const stores = memoryStore();
  // A scenario's checkpoint is of the version the connector declares now; stored as that version.
  const action = connector.action(scenario.action);
  const version = action?.direction === 'source' ? checkpointDeclaration(action.incremental).version : 1;
  if (checkpoint !== undefined) await stores.checkpoints.commit(STREAM, checkpointToStore(checkpoint, version));
  const connectionId = scenario.connection?.id ?? 'default';
  const executor = createExecutor({
    connectors: [connector],
    resolveConnection: (id) => ({
      id,
      baseUrl: run.baseUrl,
      ...(run.authBaseUrl === undefined ? {} : { authBaseUrl: run.authBaseUrl }),
      ...(scenario.connection?.settings ? { settings: scenario.connection.settings } : {}),
    }),
    resolveCredential: () => run.credential,
    stores,
    transport: run.transport,
    // Only the entries that say why a paged read ended (debug ones among them) are kept.
    log: (entry) => {
      if (typeof entry.pagingEnded === 'string')
        pagingEnds.push({ ended: entry.pagingEnded as PagingEnd, page: Number(entry.page) });
    },
    logLevel: 'debug',
    ...(run.retry ? { retry: run.retry } : {}),
    ...(run.secrets ? { secrets: run.secrets } : {}),
  });
  const request = {
    connectorKey: connector.key,
    action: scenario.action,
    connectionId,
    environment: scenario.environment ?? 'sandbox',
    input: scenario.input ?? {},
    stream: STREAM,
    ...(run.signal ? { signal: run.signal } : {}),
    onPage: (page: { records: unknown[]; checkpoint?: unknown }) => {
      records.push(...page.records);
      if (page.checkpoint !== undefined) checkpoint = page.checkpoint;
      pages += 1;
    },
  };
  try {
    const approval =
      scenario.approvedBy === undefined ? undefined : await approvalBy(scenario.approvedBy, executor, request);
    const outcome = await executor.execute({ ...request, ...(approval ? { approval } : {}) });
    if (outcome.direction === 'destination') {
      records.push(outcome.result);
      pages = 1;
    }
    return { records, pages, checkpoint, error: undefined, pagingEnds };
  } catch (error) {
    if (error instanceof ConnectorError) return { records, pages, checkpoint, error, pagingEnds };
    throw error;
  }
}

/** The approver's decision on exactly the run the executor prepared, as a reviewer gives it on the platform. */
async function approvalBy(
  approver: string,
  executor: ReturnType<typeof createExecutor>,
  request: Parameters<ReturnType<typeof createExecutor>['prepare']>[0],
): Promise<ApprovalDecision> {
  const { digest } = await executor.prepare(request);
  return { digest, requestedBy: SCENARIO_REQUESTER, decidedBy: approver, decision: 'approved', expiresAt: null };
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
  return {
    pages: result.pages,
    records: result.records,
    ...(result.checkpoint !== undefined ? { checkpoint: result.checkpoint } : {}),
  };
}
