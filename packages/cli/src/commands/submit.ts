import { ConnectorError, excerpt } from '@plugboard/sdk';
import type { Run } from '@plugboard/worker';
import { runArgs } from '../action-args.js';
import { writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { createProgress } from '../progress.js';
import { queuedTarget, queueUrls } from '../queue-urls.js';
import { UsageError } from '../usage.js';
import { approvalOption } from './run.js';

/** A run that ended otherwise than succeeded, as the failure its row names: a provider's refusal exits as `run`'s does. */
function runFailure(run: Run): ConnectorError {
  const reason = run.error ? `: ${run.error.message}` : '';
  const status = run.error?.status;
  return new ConnectorError(`run ${run.id} ${run.status}${reason}`, {
    code: run.error?.code ?? run.status,
    retryable: false,
    platformStatus: status !== undefined && status >= 400 && status < 500 ? status : 500,
    ...(status !== undefined ? { status } : {}),
  });
}

/**
 * `plugboard submit`: the worker's `submitRun` with the arguments `run` takes (a plugin folder's
 * connector checked in its own process). Follows the run and prints its records as JSON lines as
 * `run` does, or with `--detach` prints `{"id","queued"}`.
 */
export async function submitCommand(invocation: Invocation): Promise<void> {
  const { io, values } = invocation;
  const { redis, postgres } = queueUrls(values, io, 'submit');
  const key = values['idempotency-key'] as string | undefined;
  if (key === '') throw new UsageError('--idempotency-key must not be empty');
  const args = await runArgs(invocation);
  const progress = createProgress(io.stderr);
  let records = 0;
  try {
    const { submitRun } = await import('@plugboard/worker');
    const approval = approvalOption(args.values.approval);
    const submission = await submitRun({
      redis,
      postgres,
      ...queuedTarget(args),
      action: args.action,
      connection: { ...args.connection, id: args.connection.id ?? 'default' },
      ...(key !== undefined ? { idempotencyKey: key } : {}),
      ...(approval ? { approval } : {}),
      ...(values.detach
        ? {}
        : {
            follow: {
              onProgress: (event) => progress.update(event),
              onPage: (page) => {
                for (const record of page.records) writeJsonLine(io.stdout, record);
                records += page.records.length;
                progress.update({ label: `${excerpt(args.action)}: ${page.index + 1} pages`, done: records });
              },
            },
          }),
    });
    if (values.detach) writeJsonLine(io.stdout, { id: submission.id, queued: submission.queued });
    else if (submission.run?.status !== 'succeeded') throw runFailure(submission.run!);
  } finally {
    progress.done();
    if ('plugin' in args) await args.plugin.close();
  }
}
