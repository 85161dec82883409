import type { ProgressEvent } from '../context.js';
import type { ConnectionCredential } from '../credentials.js';
import type { RunSettings } from '../run.js';
import { connectionInput, resolveHostConnection } from './host-connection.js';
import type { PreparedExecution } from './outcomes.js';
import type { ExecuteRequest } from './requests.js';
import { runnerOf } from './runners.js';
import type { ExecutorSetup } from './setup.js';

/**
 * The shared preparation of a run, for either direction: the connector's runner, the host's
 * connection checked (rule 10, its environment), and the input validated once by the runner.
 * Nothing is sent; the result gives the digest an approver must review, and is what
 * `runSource` and `runDestination` run (never prepared again).
 */
export async function prepareExecution(setup: ExecutorSetup, request: ExecuteRequest): Promise<PreparedExecution> {
  const runner = runnerOf(setup.runners, request.connectorKey);
  const connection = await resolveHostConnection(setup, runner, request);
  const prepared = await runner.prepare(request.action, {
    input: request.input,
    connection: connectionInput(connection),
    environment: request.environment ?? 'sandbox',
  });
  return {
    runner,
    prepared,
    connection,
    get digest() {
      return prepared.binding.digest;
    },
    get shortDigest() {
      return prepared.binding.shortDigest;
    },
    needsApproval: prepared.needsApproval,
  };
}

/** What every run and connection check of the setup shares: its clock, and the host's pool, log and further secrets. */
export function hostSettings(
  setup: ExecutorSetup,
): Pick<RunSettings, 'clock' | 'log' | 'logLevel' | 'transport' | 'secrets'> {
  return {
    ...(setup.log ? { log: setup.log } : {}),
    ...(setup.logLevel ? { logLevel: setup.logLevel } : {}),
    ...(setup.transport ? { transport: setup.transport } : {}),
    ...(setup.secrets ? { secrets: setup.secrets } : {}),
    clock: setup.clock,
  };
}

/** The settings a run that passed the gate is given: the credential, the host's settings, and the request's signal, approval and progress. */
export function runSettings(
  setup: ExecutorSetup,
  request: Pick<ExecuteRequest, 'signal' | 'approval' | 'onProgress'>,
  credential: ConnectionCredential,
): RunSettings {
  return {
    credential: () => credential,
    ...(request.signal ? { signal: request.signal } : {}),
    ...hostSettings(setup),
    ...(setup.retry ? { retry: setup.retry } : {}),
    // A runner in another process checks the gate's decision again there, against the host's time.
    ...(request.approval ? { approval: request.approval } : {}),
    onProgress: (event: ProgressEvent) => request.onProgress?.({ type: 'progress', ...event }),
  };
}
