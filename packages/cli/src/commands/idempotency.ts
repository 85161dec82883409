import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import {
  type Connector,
  DEFAULT_SETTLE_MIN_AGE_MS,
  excerpt,
  type IdempotencyReport,
  IdempotencySettleRefusedError,
  NotFoundError,
  settleIdempotencyKey,
  zodIssues,
} from '@plugboard/sdk';
import { type CliIo, writeJsonLine } from '../io.js';
import { ensureWritable, type StateFolder, stateFolder } from '../state.js';
import { jsonOption, UsageError } from '../usage.js';

export const IDEMPOTENCY_USAGE = `Usage:
  plugboard idempotency show KEY [--state DIR]
      Print what is kept under an idempotency key, as one JSON line: state (running,
      succeeded, uncertain, or released by a decision), connector, action, digest,
      startedAt, finishedAt, the error's code and request id, and every decision made on it.
  plugboard idempotency settle KEY --as succeeded|failed --by NAME --reason TEXT
                [--result '<json>'] [--min-age DURATION | --force] [--state DIR]
      Settle a key left running (its process died) or uncertain, once the provider showed
      what happened: failed releases the key (the next run with it runs again); succeeded
      keeps --result (default null), which the next run returns without sending anything.
      Refused for a key that succeeded, and for a running key that started less than
      --min-age ago (default 1h; 90s, 15m, 2h, 1d) unless --force: its process may still
      be running. Who, when, why and what the key was before are kept with it.
Without --state: the folder plugboard run keeps keys in, $PLUGBOARD_STATE, else
$XDG_STATE_HOME/plugboard, else ~/.local/state/plugboard.
`;

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
function view(report: IdempotencyReport, folder: StateFolder): Record<string, unknown> {
  const { key, record, decisions } = report;
  if (!record) {
    if (decisions.length === 0) {
      throw new NotFoundError(`nothing is kept under idempotency key ${JSON.stringify(excerpt(key))} in ${folder.dir} (from ${folder.from})`, { code: 'idempotency_key_unknown' });
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
    ...(record.state === 'succeeded' ? { result: record.result, ...(record.decision ? { decision: record.decision } : {}) } : {}),
    decisions,
  };
}

function parse(argv: string[], options: ParseArgsOptionsConfig) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; see plugboard idempotency --help`);
  }
}

function oneKey(positionals: string[], verb: string): string {
  if (positionals.length !== 1 || positionals[0] === '') throw new UsageError(`idempotency ${verb} takes one KEY; see plugboard idempotency --help`);
  return positionals[0]!;
}

async function storeAt(folder: StateFolder) {
  return (await import('@plugboard/runtime')).fileStore(folder.dir).idempotency;
}

async function show(argv: string[], io: CliIo): Promise<void> {
  const { values, positionals } = parse(argv, { state: { type: 'string' } });
  const key = oneKey(positionals, 'show');
  const folder = stateFolder(io, values.state as string | undefined, 'idempotency show');
  writeJsonLine(io.stdout, view(await (await storeAt(folder)).inspect(key), folder));
}

/** With the action's definition at hand, a given result must be one the action could have returned. */
function checkResult(result: unknown, record: { connector: string; action: string } | undefined, pack: ReadonlyMap<string, Connector>): unknown {
  const action = record ? pack.get(record.connector)?.action(record.action) : undefined;
  if (!action) return result;
  const parsed = action.entity.safeParse(result);
  if (parsed.success) return parsed.data;
  const issues = zodIssues(parsed.error, 'result')
    .map((issue) => `${issue.path}: ${issue.message}`)
    .join('; ');
  throw new UsageError(`--result is not a result of ${record!.connector} ${record!.action}: ${issues}`);
}

async function settle(argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>): Promise<void> {
  const { values, positionals } = parse(argv, {
    state: { type: 'string' },
    as: { type: 'string' },
    by: { type: 'string' },
    reason: { type: 'string' },
    result: { type: 'string' },
    'min-age': { type: 'string' },
    force: { type: 'boolean' },
  });
  const key = oneKey(positionals, 'settle');
  const as = values.as as string | undefined;
  if (as !== 'succeeded' && as !== 'failed') throw new UsageError('--as succeeded or --as failed is required: what the provider shows the run under the key did');
  const by = (values.by as string | undefined)?.trim();
  if (!by) throw new UsageError('--by NAME is required: who decides');
  const reason = (values.reason as string | undefined)?.trim();
  if (!reason) throw new UsageError('--reason TEXT is required: why, e.g. what the provider shows');
  if (as === 'failed' && values.result !== undefined) throw new UsageError('--result goes with --as succeeded: a failed run has no result');
  if (values.force && values['min-age'] !== undefined) throw new UsageError('--force and --min-age exclude each other');
  const minAgeMs = values['min-age'] === undefined ? DEFAULT_SETTLE_MIN_AGE_MS : parseDuration(values['min-age'] as string);
  const given = jsonOption('--result', values.result as string | undefined, undefined);

  const folder = stateFolder(io, values.state as string | undefined, 'idempotency settle');
  await ensureWritable(folder, `a decision on idempotency key ${excerpt(key)}`);
  const store = await storeAt(folder);
  const { record } = await store.inspect(key);
  const result = as === 'succeeded' ? checkResult(given ?? null, record, pack) : undefined;
  try {
    const report = await settleIdempotencyKey(store, key, { as, by, reason, ...(result === undefined ? {} : { result }), force: values.force === true, minAgeMs });
    writeJsonLine(io.stdout, view(report, folder));
  } catch (error) {
    if (error instanceof NotFoundError) error.message = `${error.message} (in ${folder.dir}, from ${folder.from})`;
    if (error instanceof IdempotencySettleRefusedError && error.refusal === 'recent') {
      error.message = error.message.replace('(force)', '(--force)').replace(/, or later$/, ', or after --min-age');
    }
    throw error;
  }
}

/**
 * `plugboard idempotency show|settle KEY`: what is kept under an idempotency key, and an
 * operator's decision on a key whose run was left running or uncertain. Failures print the
 * platform Error as JSON on stderr: exit 2 for usage, 1 for a refusal or an unknown key.
 */
export async function idempotencyCommand(argv: string[], io: CliIo, pack: ReadonlyMap<string, Connector>): Promise<number | void> {
  const [verb, ...rest] = argv;
  if (verb === 'show') return show(rest, io);
  if (verb === 'settle') return settle(rest, io, pack);
  if (verb === undefined || verb === 'help' || verb === '--help' || verb === '-h') {
    io.stdout.write(IDEMPOTENCY_USAGE);
    return verb === undefined ? 2 : 0;
  }
  throw new UsageError(`idempotency takes show or settle, not '${excerpt(verb)}'; see plugboard idempotency --help`);
}
