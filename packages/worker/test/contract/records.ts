import type { IdempotencyDecision, RunningRecord, SucceededRecord, UncertainRecord } from '@plugboard/sdk/host';

/** The records and decisions the store contracts use. */

export const running: RunningRecord = {
  state: 'running',
  fingerprint: 'sha256:f',
  digest: 'sha256:d',
  connector: 'shop',
  action: 'orders.create',
  startedAt: '2026-03-01T12:00:00.000Z',
};

export const uncertain: UncertainRecord = {
  ...running,
  state: 'uncertain',
  error: { code: 'timeout', message: 'POST /orders: no answer in 30 s', requestId: 'req_1' },
  finishedAt: '2026-03-01T12:00:30.000Z',
};

export const succeeded: SucceededRecord = {
  ...running,
  state: 'succeeded',
  result: { order_id: 'ord_1', lines: [{ sku: 'A1', quantity: 2 }], note: 'café ☕' },
  finishedAt: '2026-03-01T12:00:02.000Z',
};

export function decision(
  as: 'succeeded' | 'failed',
  before: RunningRecord | UncertainRecord = running,
  at = '2026-03-01T14:00:00.000Z',
): IdempotencyDecision {
  return { as, by: 'ops@example.com', reason: 'looked the order up in the provider console', at, before };
}
