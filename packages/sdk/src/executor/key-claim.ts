import { createHash } from 'node:crypto';
import { retryPolicy } from '../definition/action.js';
import { canonicalJson } from '../digest.js';
import { ConnectorError } from '../errors.js';
import type { PreparedAction } from '../run.js';
import type { RunningRecord, UncertainRecord } from '../stores.js';
import { BEFORE_SENDING, type ExecutorErrorCode } from './errors.js';
import type { PreparedExecution } from './outcomes.js';

/**
 * What a request asks for, without the connector's version: a key repeated after the
 * connector was upgraded still finds its first result.
 */
export function fingerprint(ready: PreparedExecution): string {
  const { action, connection, environment, input } = ready.prepared;
  const asked = { connector: ready.runner.key, action: action.key, connectionId: connection.id, environment, input };
  return `sha256:${createHash('sha256').update(canonicalJson(asked)).digest('hex')}`;
}

/**
 * The key the provider gets for a caller's key (`ctx.idempotencyKey`): the caller's key and what
 * the run asks for, hashed. Two actions (or two inputs, after a failed run freed the key) under one
 * caller key never meet at the provider under one key, a key of any characters or length becomes a
 * header value every provider takes, and the same run repeated sends the same key.
 */
export function providerKey(key: string, fingerprint: string): string {
  return `pb_${createHash('sha256').update(canonicalJson({ key, fingerprint })).digest('hex').slice(0, 40)}`;
}

/**
 * True when the failed run certainly did not act at the provider, or acting again is safe: the
 * action is safe to repeat, or its provider deduplicates on the key its writes carried.
 */
export function safeToForget(error: unknown, connectorAction: PreparedAction['action']): boolean {
  if (retryPolicy(connectorAction) === 'safe') return true;
  if (connectorAction.idempotencyHeader) return true;
  if (!(error instanceof ConnectorError)) return false;
  if (BEFORE_SENDING.has(error.code)) return true;
  // The provider answered with a refusal: it did not act.
  return error.status !== undefined && error.status >= 400 && error.status < 500;
}

/** The record of a run under a key that failed after its request may have reached the provider. */
export function uncertainRecord(running: RunningRecord, error: unknown, finishedAt: string): UncertainRecord {
  const failure = error instanceof ConnectorError ? error : undefined;
  const unknown: ExecutorErrorCode = 'connector_failed';
  return {
    ...running,
    state: 'uncertain',
    error: {
      code: failure?.code ?? unknown,
      message: error instanceof Error ? error.message : String(error),
      ...(failure?.requestId ? { requestId: failure.requestId } : {}),
    },
    finishedAt,
  };
}
