import { NoOptionsError } from '@plugboard/sdk/host';
import { runArgs } from '../action-args.js';
import { actionExecutor } from '../action-executor.js';
import { didYouMean } from '../did-you-mean.js';
import { writeJsonLine } from '../io.js';
import type { Invocation } from '../invocation.js';
import { UsageError } from '../usage.js';

/**
 * `plugboard options [connector] <action> <field> [--search TEXT] [--cursor C]`: one page of the
 * field's options, listed through the executor as the platform lists them (the same connection,
 * credential and pipeline as `run`). Each option goes to stdout as a JSON line
 * `{"value","label","description"?}`; when there are more, a last line `{"nextCursor"}` gives the
 * `--cursor` of the next page.
 */
export async function optionsCommand(invocation: Invocation): Promise<void> {
  const { io, signal } = invocation;
  if (invocation.args.length < 2)
    throw new UsageError(
      'name the action and the field, e.g. plugboard options descript media_imports.create project_id',
    );
  const field = invocation.args.at(-1)!;
  const args = await runArgs({ ...invocation, args: invocation.args.slice(0, -1) });
  const { values } = args;
  const connectionId = args.connection.id ?? 'default';
  const host = await actionExecutor(io, args, connectionId);
  try {
    const page = await host.executor.listOptions({
      connectorKey: args.target.key,
      action: args.action,
      field,
      connectionId,
      environment: args.environment,
      ...(values.search === undefined ? {} : { search: values.search }),
      ...(values.cursor === undefined ? {} : { cursor: values.cursor }),
      signal,
    });
    for (const item of page.items) writeJsonLine(io.stdout, item);
    if (page.nextCursor !== undefined) writeJsonLine(io.stdout, { nextCursor: page.nextCursor });
  } catch (error) {
    // A connector loaded here says which fields list options: name the nearest.
    const fields = 'connector' in args ? Object.keys(args.connector.action(args.action)?.options ?? {}) : [];
    if (error instanceof NoOptionsError) error.message += didYouMean(field, fields);
    throw error;
  } finally {
    await host.close();
  }
}
