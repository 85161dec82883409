import { wantsJson, writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { queueUrls } from '../queue-urls.js';
import { UsageError } from '../usage.js';

/** `plugboard runs list|show|cancel`: the worker's `listRuns`, `showRun` and `cancelRun`, printed. */

type Listed = Awaited<ReturnType<typeof import('@plugboard/worker').listRuns>>[number];

function postgresUrl(values: Record<string, unknown>, env: Record<string, string | undefined>, command: string) {
  const url = (values.postgres as string | undefined) ?? env.PLUGBOARD_POSTGRES_URL;
  if (!url) throw new UsageError(`${command} needs --postgres URL, or PLUGBOARD_POSTGRES_URL`);
  return url;
}

function oneId(args: string[], command: string): string {
  const [id] = args;
  if (!id) throw new UsageError(`${command} takes one run ID`);
  return id;
}

function line(run: Listed): string {
  const records = `${run.recordsProcessed} records`;
  const error = run.error ? ` ${run.error.code}` : '';
  return `${run.id}  ${run.status}${error}  ${run.connector} ${run.action}  ${records}  ${run.createdAt}\n`;
}

export async function listCommand({ values, io }: Invocation): Promise<void> {
  const limit = Number(values.limit ?? '50');
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new UsageError('--limit must be a whole number from 1 to 1000');
  const { listRuns } = await import('@plugboard/worker');
  const runs = await listRuns({
    postgres: postgresUrl(values, io.env, 'runs list'),
    limit,
    ...(values.status ? { status: values.status as Listed['status'] } : {}),
  });
  const json = wantsJson({ values, io });
  for (const run of runs) json ? writeJsonLine(io.stdout, run) : io.stdout.write(line(run));
}

export async function showCommand({ args, values, io }: Invocation): Promise<void> {
  const id = oneId(args, 'runs show');
  const redis = (values.redis as string | undefined) ?? io.env.PLUGBOARD_REDIS_URL;
  const { showRun } = await import('@plugboard/worker');
  const run = await showRun({ postgres: postgresUrl(values, io.env, 'runs show'), id, ...(redis ? { redis } : {}) });
  if (wantsJson({ values, io })) return writeJsonLine(io.stdout, run);
  for (const [field, value] of Object.entries(run))
    io.stdout.write(`${field}: ${typeof value === 'object' && value !== null ? JSON.stringify(value) : value}\n`);
}

export async function cancelCommand({ args, values, io }: Invocation): Promise<void> {
  const id = oneId(args, 'runs cancel');
  const { redis, postgres } = queueUrls(values, io, 'runs cancel');
  const { cancelRun } = await import('@plugboard/worker');
  const { outcome, run } = await cancelRun({ redis, postgres, id });
  if (wantsJson({ values, io })) return writeJsonLine(io.stdout, { id: run.id, outcome, status: run.status });
  const said = {
    cancelled: `run ${run.id} cancelled: it was queued`,
    requested: `run ${run.id} is running: its worker stops it and marks it cancelled`,
    ended: `run ${run.id} had ended (${run.status}): nothing to cancel`,
  };
  io.stdout.write(`${said[outcome]}\n`);
}
