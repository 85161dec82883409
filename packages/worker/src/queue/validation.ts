import type { ApprovalDecision, Environment } from '@plugboard/sdk';
import { createExecutor, type ExecutorOptions, type HostConnection, passGate } from '@plugboard/sdk/host';

/**
 * A run checked as the executor checks it before anything is sent: the connector and action
 * known, the connection's settings (rule 10, its environment), the input, and the approval
 * (`passGate`, the digest of exactly what will run). The same typed errors as `plugboard run`.
 */

export interface RunToCheck {
  connectors?: ExecutorOptions['connectors'];
  plugins?: ExecutorOptions['plugins'];
  connector: string;
  action: string;
  input: unknown;
  connection: HostConnection;
  environment: Environment;
  approval?: ApprovalDecision | undefined;
  /** The time the approval is checked against; default now. */
  now?: number;
}

/** Checks the run and says which way it goes: a source's pages, or a destination's one write. */
export async function checkRun(run: RunToCheck): Promise<'source' | 'destination'> {
  const executor = createExecutor({
    ...(run.connectors ? { connectors: run.connectors } : {}),
    ...(run.plugins ? { plugins: run.plugins } : {}),
    resolveConnection: () => run.connection,
    // Preparing never reads the credential: the worker resolves it when the run is taken.
    resolveCredential: () => undefined,
  });
  const ready = await executor.prepare({
    connectorKey: run.connector,
    action: run.action,
    connectionId: run.connection.id,
    environment: run.environment,
    input: run.input,
  });
  passGate(ready.prepared, run.approval, run.now ?? Date.now());
  return ready.prepared.action.direction;
}
