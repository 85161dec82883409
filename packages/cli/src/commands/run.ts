import { resolve } from 'node:path';
import { type ApprovalDecision, excerpt } from '@plugboard/sdk';
import { IdempotencyUnsettledError } from '@plugboard/sdk/host';
import { runArgs } from '../action-args.js';
import { actionExecutor } from '../action-executor.js';
import { writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { createProgress } from '../progress.js';
import { ensureWritable, stateFolder } from '../state.js';
import { jsonOption, UsageError } from '../usage.js';

export function approvalOption(text: string | undefined): ApprovalDecision | undefined {
  const approval = jsonOption('--approval', text, undefined);
  if (approval !== undefined && (approval === null || typeof approval !== 'object' || Array.isArray(approval))) {
    throw new UsageError(
      '--approval must be a JSON object: {"digest", "requestedBy", "decidedBy", "decision", "expiresAt"}',
    );
  }
  return approval as ApprovalDecision | undefined;
}

/**
 * The folder a run keeps its state in: `--state DIR`; for a destination with an idempotency
 * key, the default state folder when `--state` is not given (said on stderr), since a key
 * kept in one process's memory would not stop another process from writing again; else
 * none (a source without `--state` keeps no checkpoint).
 */
async function runState(
  { io, messages }: Pick<Invocation, 'io' | 'messages'>,
  given: string | undefined,
  key: string | undefined,
  destination: boolean,
): Promise<string | undefined> {
  if (key === '') throw new UsageError('--idempotency-key must not be empty');
  const keyed = key !== undefined && destination;
  if (!keyed) return given === undefined ? undefined : resolve(io.cwd, given);
  const purpose = `--idempotency-key ${excerpt(key)}`;
  const folder = stateFolder(io, given, purpose);
  await ensureWritable(folder, purpose);
  if (folder.from !== '--state') {
    messages.say({
      level: 'info',
      message: `idempotency key ${excerpt(key)} is kept in ${folder.dir} (from ${folder.from}; --state DIR keeps it elsewhere)`,
    });
  }
  return folder.dir;
}

/**
 * `plugboard run`: the action through the runtime's executor, as the platform runs it.
 * Records go to stdout as JSON lines; with `--state DIR` a source's checkpoint is
 * committed there after its page went to stdout, and a destination's result is kept
 * under `--idempotency-key`, so a repeated command returns it without a second call.
 * A key is always kept in a folder, the default state folder when `--state` is not given.
 * A connection signed in with `auth login` runs on its kept token set, refreshed in place.
 */
export async function runCommand(invocation: Invocation): Promise<void> {
  const { io, messages, signal } = invocation;
  const args = await runArgs(invocation);
  const { values } = args;
  const connectionId = args.connection.id ?? 'default';
  const destination = args.target.actions.find((action) => action.key === args.action)?.direction === 'destination';
  const state = await runState(invocation, values.state, values['idempotency-key'], destination);
  const progress = createProgress(io.stderr);
  const host = await actionExecutor(
    io,
    args,
    connectionId,
    state ? (await import('@plugboard/runtime')).fileStore(state) : undefined,
  );
  let records = 0;
  // Where a source resumed from (the checkpoint of --state), to say how many records were new.
  let resumedFrom: unknown;
  try {
    const outcome = await host.executor.execute({
      connectorKey: args.target.key,
      action: args.action,
      connectionId,
      environment: args.environment,
      input: args.input,
      signal,
      ...(values.approval ? { approval: approvalOption(values.approval)! } : {}),
      ...(values['idempotency-key'] !== undefined ? { idempotencyKey: values['idempotency-key'] } : {}),
      onProgress: (event) => {
        if (event.type === 'progress') progress.update(event);
        if (event.type === 'started' && event.checkpoint !== undefined) resumedFrom = event.checkpoint;
      },
      onPage: (page, { index }) => {
        for (const record of page.records) writeJsonLine(io.stdout, record);
        records += page.records.length;
        progress.update({ label: `${args.action}: ${index + 1} page${index === 0 ? '' : 's'}`, done: records });
      },
    });
    if (outcome.direction === 'source' && resumedFrom !== undefined) {
      progress.done();
      messages.say({
        level: 'info',
        message: `resumed from the checkpoint in ${excerpt(values.state ?? '')}: ${excerpt(JSON.stringify(resumedFrom))}; ${records} new record${records === 1 ? '' : 's'}`,
      });
    }
    if (outcome.direction === 'destination') {
      if (outcome.replayed) {
        messages.say({
          level: 'info',
          message: `replayed: the first result under idempotency key ${values['idempotency-key']}; nothing was sent`,
        });
      }
      writeJsonLine(io.stdout, outcome.result);
    }
  } catch (error) {
    // The key waits for an operator: say how to look at it and settle it.
    if (error instanceof IdempotencyUnsettledError) {
      const where = values.state === undefined ? '' : ` --state ${excerpt(values.state)}`;
      error.message += `; see plugboard idempotency show ${excerpt(values['idempotency-key'] ?? '')}${where}, and plugboard idempotency settle --help`;
    }
    throw error;
  } finally {
    progress.done();
    await host.close();
  }
}
