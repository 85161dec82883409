import {
  DEFAULT_SETTLE_MIN_AGE_MS,
  type IdempotencyReport,
  type IdempotencyStore,
  IdempotencySettleRefusedError,
  settleIdempotencyKey,
} from '@plugboard/sdk/host';
import { excerpt, NotFoundError, zodIssues } from '@plugboard/sdk';
import type { FindConnector } from '../connectors.js';
import { writeJsonLine } from '../io.js';
import { idempotencyPlace } from '../idempotency-place.js';
import type { Invocation } from '../invocation.js';
import { jsonOption, UsageError } from '../usage.js';

const DURATION = /^(\d+(?:\.\d+)?)(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `15m`, `2h`, `1d`, or `0`, in milliseconds. */
export function parseDuration(text: string): number {
  if (text === '0') return 0;
  const match = DURATION.exec(text.trim());
  if (!match) throw new UsageError(`--min-age takes a duration such as 90s, 15m, 2h or 1d, not '${excerpt(text)}'`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** What `show` prints: the record's fields in a fixed order, then the decisions. */
function view(report: IdempotencyReport, where: string): Record<string, unknown> {
  const { key, record, decisions } = report;
  if (!record) {
    if (decisions.length === 0) {
      throw new NotFoundError(`nothing is kept under idempotency key ${JSON.stringify(excerpt(key))} in ${where}`, {
        code: 'idempotency_key_unknown',
      });
    }
    // Released by a decision and not run since: the next run with the key runs.
    return { key, state: 'released', decisions };
  }
  const { state, connector, action, digest, fingerprint, startedAt } = record;
  return {
    key,
    state,
    connector,
    action,
    digest,
    fingerprint,
    startedAt,
    ...(record.state === 'running' ? {} : { finishedAt: record.finishedAt }),
    ...(record.state === 'uncertain' ? { error: record.error } : {}),
    ...(record.state === 'succeeded'
      ? { result: record.result, ...(record.decision ? { decision: record.decision } : {}) }
      : {}),
    decisions,
  };
}

/** `plugboard idempotency show KEY`: what is kept under the key, as one JSON line. */
export async function showCommand({ args, values, io }: Invocation): Promise<void> {
  const [key] = args;
  if (!key) throw new UsageError('idempotency show takes one KEY');
  const place = await idempotencyPlace(values, io, 'idempotency show');
  try {
    writeJsonLine(io.stdout, view(await place.store.inspect(key), place.where));
  } finally {
    await place.close();
  }
}

/** With the action's definition at hand, a given result must be one the action could have returned; without it, the result is kept as given. */
async function checkResult(
  result: unknown,
  record: { connector: string; action: string } | undefined,
  findConnector: FindConnector,
): Promise<unknown> {
  const found = record ? await findConnector({ key: record.connector }).catch(() => undefined) : undefined;
  const action = found?.connector.action(record!.action);
  if (!action) return result;
  const parsed = action.entity.safeParse(result);
  if (parsed.success) return parsed.data;
  const issues = zodIssues(parsed.error, 'result')
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
  throw new UsageError(`--result is not a result of ${record!.connector} ${record!.action}: ${issues}`);
}

/**
 * `plugboard idempotency settle KEY`: an operator's decision on a key whose run was left
 * running (its process died) or uncertain, once the provider showed what happened.
 */
export async function settleCommand({ args, values, io, findConnector }: Invocation): Promise<void> {
  const [key] = args;
  if (!key) throw new UsageError('idempotency settle takes one KEY');
  const as = values.as as 'succeeded' | 'failed';
  const by = (values.by as string).trim();
  if (!by) throw new UsageError('--by NAME must name who decides');
  const reason = (values.reason as string).trim();
  if (!reason) throw new UsageError('--reason TEXT must say why, e.g. what the provider shows');
  if (as === 'failed' && values.result !== undefined)
    throw new UsageError('--result goes with --as succeeded: a failed run has no result');
  const minAge = values['min-age'] as string | undefined;
  if (values.force && minAge !== undefined) throw new UsageError('--force and --min-age exclude each other');
  const minAgeMs = minAge === undefined ? DEFAULT_SETTLE_MIN_AGE_MS : parseDuration(minAge);
  const given = jsonOption('--result', values.result as string | undefined, undefined);

  const place = await idempotencyPlace(
    values,
    io,
    'idempotency settle',
    `a decision on idempotency key ${excerpt(key)}`,
  );
  try {
    writeJsonLine(
      io.stdout,
      view(
        await settle(
          place.store,
          key,
          { as, by, reason, given, force: values.force === true, minAgeMs },
          findConnector,
        ),
        place.where,
      ),
    );
  } catch (error) {
    if (error instanceof NotFoundError) error.message = `${error.message} (in ${place.where})`;
    if (error instanceof IdempotencySettleRefusedError && error.refusal === 'recent') {
      error.message = error.message.replace('(force)', '(--force)').replace(/, or later$/, ', or after --min-age');
    }
    throw error;
  } finally {
    await place.close();
  }
}

interface Settlement {
  as: 'succeeded' | 'failed';
  by: string;
  reason: string;
  given: unknown;
  force: boolean;
  minAgeMs: number;
}

/** The decision applied to the store, the result checked against the action when it is known. */
async function settle(store: IdempotencyStore, key: string, decision: Settlement, findConnector: FindConnector) {
  const { as, by, reason, given, force, minAgeMs } = decision;
  const { record } = await store.inspect(key);
  const result = as === 'succeeded' ? await checkResult(given ?? null, record, findConnector) : undefined;
  return settleIdempotencyKey(store, key, {
    as,
    by,
    reason,
    ...(result === undefined ? {} : { result }),
    force,
    minAgeMs,
  });
}
