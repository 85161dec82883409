import type { PreparedAction } from '../run.js';
import type { ConnectorRunner } from '../runner.js';
import type { HostConnection } from './setup.js';

export interface PreparedExecution {
  /** Where the connector's actions are checked and run. */
  runner: ConnectorRunner;
  /** Validated once; the run is handed this, never prepared again. */
  prepared: PreparedAction;
  connection: HostConnection;
  /** The digest an approver reviews (computed when read). */
  readonly digest: string;
  readonly shortDigest: string;
  needsApproval: boolean;
}

export interface DestinationOutcome {
  direction: 'destination';
  result: unknown;
  /** True when the result is that of the first run with the same idempotency key. */
  replayed: boolean;
  /** The approval digest, when the run needed an approval or had an idempotency key. */
  digest?: string;
}

export interface SourceOutcome {
  direction: 'source';
  /** Sources are never replayed: idempotency keys apply to destinations. */
  replayed: false;
  pages: number;
  records: number;
  /** The last committed checkpoint (the starting one when no page brought one). */
  checkpoint: unknown;
  stream: string;
  /** The approval digest, when the run needed an approval. */
  digest?: string;
}

export type ExecutionOutcome = DestinationOutcome | SourceOutcome;
